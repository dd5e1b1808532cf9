package io.gpuwatch.gateway.cost;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What one hour of a card costs, for {@code costPerToken} and the digests' business figures: a business's own
 * rate first, else the first card model whose text appears in the card's name, else the default.
 */
public record Pricing(String currency, double defaultPerHour, List<ModelPrice> models, Map<String, Double> businesses) {
    /** The price of cards whose NVML name contains {@code match} (case-insensitive). */
    public record ModelPrice(String match, double perHour) {
        public ModelPrice {
            Objects.requireNonNull(match, "match");
        }
    }

    /** No prices at all: every card's price is unknown. */
    public static final Pricing NONE = new Pricing("", Double.NaN, List.of(), Map.of());

    public Pricing {
        Objects.requireNonNull(currency, "currency");
        models = List.copyOf(models);
        businesses = Map.copyOf(businesses);
    }

    /** The price of an hour of the card named {@code cardName} used by {@code business} (either may be null); NaN when unknown. */
    public double perCardHour(String business, String cardName) {
        if (business != null) {
            Double own = businesses.get(business);
            if (own != null) {
                return own;
            }
        }
        if (cardName != null) {
            String name = cardName.toLowerCase(Locale.ROOT);
            for (ModelPrice m : models) {
                if (name.contains(m.match().toLowerCase(Locale.ROOT))) {
                    return m.perHour();
                }
            }
        }
        return defaultPerHour;
    }
}
