package io.gpuwatch.gateway.cost;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A pricing file prices a card by its business first, then its model, then the default; mistakes name their place. */
class PricingFileTest {
    private static final String FILE = """
            currency: USD
            card_hour:
              default: 2.00
              models:
                - {match: H200, price: 4.20}
                - {match: h100, price: 3.50}
              businesses:
                research: 1.20
            """;

    @Test
    void aBusinessRateBeatsTheModelWhichBeatsTheDefault() {
        PricingFile.Load load = PricingFile.parse("p.yml", FILE);
        assertTrue(load.ok(), load.errors()::toString);
        Pricing p = load.pricing();
        assertEquals("USD", p.currency());
        assertEquals(1.20, p.perCardHour("research", "NVIDIA H100 80GB HBM3"));
        assertEquals(3.50, p.perCardHour("ads", "NVIDIA H100 80GB HBM3"), "model text matches case-insensitively");
        assertEquals(4.20, p.perCardHour("ads", "NVIDIA H200"));
        assertEquals(2.00, p.perCardHour(null, "NVIDIA A100-SXM4-80GB"));
        assertEquals(2.00, p.perCardHour(null, null));
    }

    @Test
    void withoutADefaultAnUnmatchedCardHasNoPrice() {
        Pricing p = PricingFile.parse("p.yml", "card_hour:\n  models:\n    - {match: H100, price: 3}\n").pricing();
        assertTrue(Double.isNaN(p.perCardHour("ads", "NVIDIA A100")));
        assertTrue(Double.isNaN(Pricing.NONE.perCardHour("ads", "NVIDIA H100")));
    }

    @Test
    void everyMistakeIsReportedWithItsPlaceAndNoPricingIsGiven() {
        PricingFile.Load load = PricingFile.parse("p.yml", """
                currency: USD
                card_hour:
                  default: two
                  models:
                    - {match: H100}
                  businesse:
                    research: 1
                """);
        assertNull(load.pricing());
        assertEquals(3, load.errors().size(), load.errors()::toString);
        assertTrue(load.errors().stream().anyMatch(e -> e.startsWith("p.yml:3:12: card_hour.default must be a price")),
                load.errors()::toString);
        assertTrue(load.errors().contains("p.yml:5:7: a model price needs both match and price"), load.errors()::toString);
        assertTrue(load.errors().stream().anyMatch(e -> e.startsWith("p.yml:6:3: unknown key `businesse`")),
                load.errors()::toString);
        assertTrue(PricingFile.parse("p.yml", "card_hour: [1, 2]\n").errors().get(0).startsWith("p.yml:1:12:"));
        assertTrue(PricingFile.parse("p.yml", "card_hour: {default: 1\n").errors().get(0).startsWith("p.yml:"));
    }

    @Test
    void aPoolsMistakeNamesItsPlace() {
        PricingFile.Load load = PricingFile.parse("p.yml", """
                card_hour:
                  pools:
                    owned: {}
                    rented: {default: cheap}
                    reserved: {models: [{match: H100, price: 3.9}], defualt: 1}
                """);
        assertNull(load.pricing());
        assertEquals(List.of("p.yml:3:12: card_hour.pools.owned gives no price: set default or models",
                "p.yml:4:23: card_hour.pools.rented.default must be a price of one card-hour, a number ≥ 0, not "
                        + "`cheap`",
                "p.yml:5:53: unknown key `defualt` (allowed: default, models)"), load.errors());
    }
}
