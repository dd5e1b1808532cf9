package io.gpuwatch.gateway.cost;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What one hour of a card costs, for {@code costPerToken} and the digests' business figures: a business's own
 * rate first; else, for a card of a node in a priced pool (its hello label {@code pool}: owned, cloud on-demand,
 * reserved, …), the pool's price of the first model whose text appears in the card's name, else the pool's
 * default; else the first model price, else the default.
 */
public record Pricing(String currency, double defaultPerHour, List<ModelPrice> models, Map<String, Double> businesses,
                      Map<String, PoolPrice> pools) {
    /** The prices of one pool: per model, and its default (NaN: fall back to the prices outside pools). */
    public record PoolPrice(double defaultPerHour, List<ModelPrice> models) {
        public PoolPrice {
            models = List.copyOf(models);
        }
    }

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
        pools = Map.copyOf(pools);
    }

    /** Prices without pools. */
    public Pricing(String currency, double defaultPerHour, List<ModelPrice> models, Map<String, Double> businesses) {
        this(currency, defaultPerHour, models, businesses, Map.of());
    }

    /** {@link #perCardHour(String, String, String)} of a card outside any pool. */
    public double perCardHour(String business, String cardName) {
        return perCardHour(business, null, cardName);
    }

    /**
     * The price of an hour of the card named {@code cardName} of a node in {@code pool}, used by {@code business}
     * (any may be null); NaN when unknown.
     */
    public double perCardHour(String business, String pool, String cardName) {
        if (business != null) {
            Double own = businesses.get(business);
            if (own != null) {
                return own;
            }
        }
        PoolPrice p = pool == null ? null : pools.get(pool);
        if (p != null) {
            double model = model(p.models(), cardName);
            if (!Double.isNaN(model)) {
                return model;
            }
            if (!Double.isNaN(p.defaultPerHour())) {
                return p.defaultPerHour();
            }
        }
        double model = model(models, cardName);
        return Double.isNaN(model) ? defaultPerHour : model;
    }

    private static double model(List<ModelPrice> prices, String cardName) {
        if (cardName != null) {
            String name = cardName.toLowerCase(Locale.ROOT);
            for (ModelPrice m : prices) {
                if (name.contains(m.match().toLowerCase(Locale.ROOT))) {
                    return m.perHour();
                }
            }
        }
        return Double.NaN;
    }
}
