package io.gpuwatch.gateway.digest;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BusinessMeterTest {
    private static final long MIN = 60_000;

    @Test
    void figuresAddUpCardHoursCostAndTokensOverTheSamples() {
        // 30 minutes: 4 cards held at 2.00 an hour each, 2 of them idle, 1,000 tokens a second
        List<BusinessMeter.Sample> samples = List.of(
                new BusinessMeter.Sample(10 * MIN, 10 * MIN, Map.of("search",
                        new BusinessMeter.Usage(4, 2, 8.0, 1000))),
                new BusinessMeter.Sample(30 * MIN, 20 * MIN, Map.of("search",
                        new BusinessMeter.Usage(4, 2, 8.0, 1000),
                        "ads", new BusinessMeter.Usage(1, 1, Double.NaN, 0))));
        List<BusinessMeter.Figures> f = BusinessMeter.figures(samples);
        assertEquals(List.of("ads", "search"), f.stream().map(BusinessMeter.Figures::business).toList());
        BusinessMeter.Figures search = f.get(1);
        assertEquals(1.0, search.idleCardHours(), 1e-9);
        assertEquals(2.0, search.cardHours(), 1e-9);
        assertEquals(4.0, search.cost(), 1e-9);
        assertEquals(1.8e6, search.tokens(), 1e-6);
        assertEquals(4.0 / 1.8, search.costPerMillionTokens(), 1e-9);
        BusinessMeter.Figures ads = f.get(0);
        assertEquals(1.0 / 3, ads.idleCardHours(), 1e-9);
        assertTrue(Double.isNaN(ads.costPerMillionTokens()), "no price and no tokens give no cost per token");
    }
}
