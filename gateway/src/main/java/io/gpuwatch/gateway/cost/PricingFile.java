package io.gpuwatch.gateway.cost;

import io.gpuwatch.rules.source.Diagnostic;
import io.gpuwatch.rules.source.SourceText;

import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a pricing file ({@code gateway --pricing FILE}); every mistake is reported as {@code file:line:col: …} and
 * a file with any mistake gives no pricing, so a typo never turns into a wrong bill.
 * <pre>
 * currency: USD
 * card_hour:
 *   default: 2.00
 *   models:
 *     - {match: H100, price: 3.50}
 *   businesses:
 *     research: 1.20
 *   pools:                      # by the node's hello label pool
 *     cloud-on-demand: {default: 4.00, models: [{match: H100, price: 6.98}]}
 * </pre>
 */
public final class PricingFile {
    /** The pricing read, or the errors that stopped it. */
    public record Load(Pricing pricing, List<String> errors) {
        public Load {
            errors = List.copyOf(errors);
        }

        public boolean ok() {
            return errors.isEmpty();
        }
    }

    private final String file;
    private final List<String> errors = new ArrayList<>();

    private PricingFile(String file) {
        this.file = file;
    }

    /** Reads {@code path}. */
    public static Load read(Path path) {
        try {
            return parse(path.toString(), Files.readString(path));
        } catch (IOException e) {
            return new Load(null, List.of(path + ": cannot read: " + e.getMessage()));
        }
    }

    /** Parses {@code text}, naming {@code file} in errors. */
    public static Load parse(String file, String text) {
        PricingFile reader = new PricingFile(file);
        Pricing p = reader.pricing(text);
        return reader.errors.isEmpty() ? new Load(p, List.of()) : new Load(null, reader.errors);
    }

    private Pricing pricing(String text) {
        SourceText.Composed composed = SourceText.compose(file, text);
        if (composed.error() != null) {
            Diagnostic d = composed.error();
            errors.add(file + ":" + d.line() + ":" + d.column() + ": " + d.message());
            return null;
        }
        Optional<Node> root = composed.root();
        if (root.isEmpty() || !(root.get() instanceof MappingNode top)) {
            errors.add(file + ":1:1: a pricing file is a mapping with currency and card_hour");
            return null;
        }
        Map<String, Node> keys = keys(top, Set.of("currency", "card_hour"));
        String currency = keys.containsKey("currency") ? text(keys.get("currency"), "currency") : "";
        Node hourNode = keys.get("card_hour");
        if (hourNode == null) {
            errors.add(at(top) + "card_hour is missing: the prices of a card-hour");
            return null;
        }
        if (!(hourNode instanceof MappingNode hour)) {
            errors.add(at(hourNode) + "card_hour must be a mapping of default, models, businesses and pools");
            return null;
        }
        Map<String, Node> h = keys(hour, Set.of("default", "models", "businesses", "pools"));
        double def = h.containsKey("default") ? price(h.get("default"), "card_hour.default") : Double.NaN;
        List<Pricing.ModelPrice> models = h.containsKey("models") ? models(h.get("models"), "card_hour.models")
                : List.of();
        Map<String, Pricing.PoolPrice> pools = new LinkedHashMap<>();
        if (h.containsKey("pools")) {
            if (!(h.get("pools") instanceof MappingNode pm)) {
                errors.add(at(h.get("pools")) + "card_hour.pools must map pool names to {default, models}");
            } else {
                for (NodeTuple t : pm.getValue()) {
                    String name = text(t.getKeyNode(), "pool");
                    if (name == null) {
                        continue;
                    }
                    if (!(t.getValueNode() instanceof MappingNode pool)) {
                        errors.add(at(t.getValueNode()) + "card_hour.pools." + name + " must be {default, models}");
                        continue;
                    }
                    Map<String, Node> pk = keys(pool, Set.of("default", "models"));
                    double poolDefault = pk.containsKey("default")
                            ? price(pk.get("default"), "card_hour.pools." + name + ".default") : Double.NaN;
                    List<Pricing.ModelPrice> poolModels = pk.containsKey("models")
                            ? models(pk.get("models"), "card_hour.pools." + name + ".models") : List.of();
                    if (!pk.containsKey("default") && !pk.containsKey("models")) {
                        errors.add(at(pool) + "card_hour.pools." + name + " gives no price: set default or models");
                    }
                    pools.put(name, new Pricing.PoolPrice(poolDefault, poolModels));
                }
            }
        }
        Map<String, Double> businesses = new LinkedHashMap<>();
        if (h.containsKey("businesses")) {
            if (!(h.get("businesses") instanceof MappingNode bm)) {
                errors.add(at(h.get("businesses")) + "card_hour.businesses must map business names to prices");
            } else {
                for (NodeTuple t : bm.getValue()) {
                    String name = text(t.getKeyNode(), "business");
                    if (name != null) {
                        businesses.put(name, price(t.getValueNode(), "card_hour.businesses." + name));
                    }
                }
            }
        }
        if (errors.isEmpty() && Double.isNaN(def) && models.isEmpty() && businesses.isEmpty() && pools.isEmpty()) {
            errors.add(at(hour) + "card_hour gives no price: set default, models, businesses or pools");
        }
        return errors.isEmpty() ? new Pricing(currency == null ? "" : currency, def, models, businesses, pools) : null;
    }

    /** A list of {match, price}, named {@code what} in errors. */
    private List<Pricing.ModelPrice> models(Node node, String what) {
        List<Pricing.ModelPrice> models = new ArrayList<>();
        if (!(node instanceof SequenceNode seq)) {
            errors.add(at(node) + what + " must be a list of {match, price}");
            return models;
        }
        for (Node item : seq.getValue()) {
            if (!(item instanceof MappingNode m)) {
                errors.add(at(item) + "a model price is {match: H100, price: 3.50}");
                continue;
            }
            Map<String, Node> mk = keys(m, Set.of("match", "price"));
            if (!mk.containsKey("match") || !mk.containsKey("price")) {
                errors.add(at(item) + "a model price needs both match and price");
                continue;
            }
            String match = text(mk.get("match"), "match");
            double price = price(mk.get("price"), "price");
            if (match != null && !match.isBlank()) {
                models.add(new Pricing.ModelPrice(match, price));
            } else {
                errors.add(at(mk.get("match")) + "match must name a card model, e.g. H100");
            }
        }
        return models;
    }

    private Map<String, Node> keys(MappingNode node, Set<String> allowed) {
        Map<String, Node> out = new LinkedHashMap<>();
        for (NodeTuple t : node.getValue()) {
            String key = t.getKeyNode() instanceof ScalarNode s ? s.getValue() : null;
            if (key == null || !allowed.contains(key)) {
                errors.add(at(t.getKeyNode()) + "unknown key " + (key == null ? "(not text)" : "`" + key + "`")
                        + " (allowed: " + String.join(", ", allowed.stream().sorted().toList()) + ")");
            } else if (out.put(key, t.getValueNode()) != null) {
                errors.add(at(t.getKeyNode()) + "`" + key + "` is given twice");
            }
        }
        return out;
    }

    private String text(Node node, String what) {
        if (node instanceof ScalarNode s) {
            return s.getValue();
        }
        errors.add(at(node) + what + " must be text");
        return null;
    }

    private double price(Node node, String what) {
        String v = text(node, what);
        if (v == null) {
            return Double.NaN;
        }
        try {
            double d = Double.parseDouble(v.trim());
            if (d >= 0 && Double.isFinite(d)) {
                return d;
            }
        } catch (NumberFormatException e) {
            // reported below with the value
        }
        errors.add(at(node) + what + " must be a price of one card-hour, a number ≥ 0, not `" + v + "`");
        return Double.NaN;
    }

    private String at(Node node) {
        return file + ":" + SourceText.of(node) + ": ";
    }
}
