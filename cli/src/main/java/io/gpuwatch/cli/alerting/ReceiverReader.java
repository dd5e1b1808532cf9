package io.gpuwatch.cli.alerting;

import io.gpuwatch.gateway.digest.DigestSchedule;
import io.gpuwatch.notify.acklink.AckLink;
import io.gpuwatch.notify.config.ConfigProblem;
import io.gpuwatch.notify.config.Fields;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.receiver.alertmanager.AlertmanagerConfig;
import io.gpuwatch.notify.receiver.alertmanager.AlertmanagerReceiver;
import io.gpuwatch.notify.receiver.console.ConsoleReceiver;
import io.gpuwatch.notify.receiver.console.ConsoleReportTarget;
import io.gpuwatch.notify.receiver.dingtalk.DingTalkConfig;
import io.gpuwatch.notify.receiver.dingtalk.DingTalkReceiver;
import io.gpuwatch.notify.receiver.dingtalk.DingTalkReportTarget;
import io.gpuwatch.notify.receiver.feishu.FeishuConfig;
import io.gpuwatch.notify.receiver.feishu.FeishuReceiver;
import io.gpuwatch.notify.receiver.feishu.FeishuReportTarget;
import io.gpuwatch.notify.receiver.jira.JiraConfig;
import io.gpuwatch.notify.receiver.jira.JiraReceiver;
import io.gpuwatch.notify.receiver.opsgenie.OpsgenieConfig;
import io.gpuwatch.notify.receiver.opsgenie.OpsgenieReceiver;
import io.gpuwatch.notify.receiver.pagerduty.PagerDutyConfig;
import io.gpuwatch.notify.receiver.pagerduty.PagerDutyReceiver;
import io.gpuwatch.notify.receiver.slack.SlackConfig;
import io.gpuwatch.notify.receiver.slack.SlackReceiver;
import io.gpuwatch.notify.receiver.slack.SlackReportTarget;
import io.gpuwatch.notify.receiver.teams.TeamsConfig;
import io.gpuwatch.notify.receiver.teams.TeamsReceiver;
import io.gpuwatch.notify.receiver.teams.TeamsReportTarget;
import io.gpuwatch.notify.receiver.webhook.WebhookConfig;
import io.gpuwatch.notify.receiver.webhook.WebhookReceiver;
import io.gpuwatch.notify.receiver.wecom.WeComConfig;
import io.gpuwatch.notify.receiver.wecom.WeComReceiver;
import io.gpuwatch.notify.receiver.wecom.WeComReportTarget;
import io.gpuwatch.notify.secret.Secret;
import io.gpuwatch.notify.secret.SecretSource;
import io.gpuwatch.rules.source.Diagnostic;
import io.gpuwatch.rules.source.DidYouMean;
import io.gpuwatch.rules.source.SourceText;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Reads the {@code receivers:} list of an alerting file. The YAML is given twice, as composed nodes (for the
 * place of each receiver and field) and as loaded values (what the receivers' own parsers take), item for item.
 * Each receiver's field problems come back at the place of the field they name.
 */
final class ReceiverReader {
    /** The receiver types, as written in {@code type:}. */
    static final List<String> TYPES = List.of("slack", "teams", "feishu", "dingtalk", "wecom", "pagerduty",
            "opsgenie", "jira", "alertmanager", "webhook", "console");
    /** The types that take a {@code digest:} schedule: chat channels a person reads, and the console. */
    static final List<String> DIGEST_TYPES = List.of("slack", "teams", "feishu", "dingtalk", "wecom", "console");
    /** The chat types whose messages can mention the on-call person ({@code mention:}). */
    static final List<String> MENTION_TYPES = List.of("slack", "teams", "feishu", "dingtalk", "wecom");
    /**
     * The types whose service can report acknowledgements back through a webhook: the pagers, Slack, whose
     * messages then carry an Acknowledge button (its app's signing secret signs the clicks), and the chat bots
     * without callbacks, whose messages then carry a link signed with the secret.
     */
    static final List<String> HOOK_TYPES = List.of("pagerduty", "opsgenie", "slack", "feishu", "dingtalk", "wecom");

    private final String file;
    private final SecretSource secrets;
    /** Called after each receiver is parsed, with its name and position, e.g. to report secrets not checked. */
    private final BiFunction<String, Node, List<Diagnostic>> afterEach;
    private final List<Diagnostic> diagnostics = new ArrayList<>();
    private final List<ReceiverSpec> specs = new ArrayList<>();
    private final Map<String, Node> names = new LinkedHashMap<>();

    ReceiverReader(String file, SecretSource secrets, BiFunction<String, Node, List<Diagnostic>> afterEach) {
        this.file = file;
        this.secrets = secrets;
        this.afterEach = afterEach;
    }

    /** The receivers read, each receiver that has a name counted even when its fields are wrong. */
    record Result(List<ReceiverSpec> receivers, Set<String> names, List<Diagnostic> diagnostics) {
    }

    Result read(Node node, Object loaded) {
        if (node instanceof SequenceNode seq && loaded instanceof List<?> items) {
            for (int i = 0; i < seq.getValue().size(); i++) {
                receiver(seq.getValue().get(i), i < items.size() ? items.get(i) : null, i);
            }
        } else if (!Tag.NULL.equals(node.getTag())) {
            error(node, "`receivers` must be a list of receivers, each with `name:` and `type:`");
        }
        return new Result(specs, names.keySet(), diagnostics);
    }

    private void receiver(Node node, Object loaded, int index) {
        if (!(node instanceof MappingNode m) || !(loaded instanceof Map<?, ?> values)) {
            error(node, "a receiver must be a mapping with `name:`, `type:` and the type's fields");
            return;
        }
        Map<String, NodeTuple> keys = new LinkedHashMap<>();
        for (NodeTuple t : m.getValue()) {
            if (t.getKeyNode() instanceof ScalarNode k) {
                keys.put(k.getValue(), t);
            }
        }
        String name = text(keys.get("name"), m, "name", "a receiver needs `name:`, which routes refer to it by");
        String type = text(keys.get("type"), m, "type", "a receiver needs `type:` (" + String.join(", ", TYPES)
                + ")");
        if (name != null) {
            Node first = names.putIfAbsent(name, keys.get("name").getValueNode());
            if (first != null) {
                error(keys.get("name").getValueNode(), "receiver `" + name + "` is defined twice (first at line "
                        + SourceText.of(first).line() + ")");
                return;
            }
        }
        if (type == null) {
            return;
        }
        String lower = type.toLowerCase(Locale.ROOT);
        if (!TYPES.contains(lower)) {
            error(keys.get("type").getValueNode(), "unknown receiver type `" + type + "`" + DidYouMean.hint(type, TYPES)
                    + " (types: " + String.join(", ", TYPES) + ")");
            return;
        }
        Map<Object, Object> fields = new LinkedHashMap<>(values);
        fields.remove("name");
        fields.remove("type");
        fields.remove("digest");
        fields.remove("webhookSecret");
        fields.remove("callbackKey");
        fields.remove("mention");
        String path = "receivers." + (name == null ? "[" + index + "]" : name);
        String label = name == null ? "receivers[" + index + "]" : name;
        List<MentionRef> mention = mention(keys.get("mention"), lower);
        if (mention == null) {
            return;
        }
        int before = diagnostics.size();
        Secret webhookSecret = webhookSecret(keys.get("webhookSecret"), values, lower, path, m);
        Secret callbackKey = callbackKey(keys.get("callbackKey"), values, lower, path, m);
        boolean hookOk = diagnostics.size() == before;
        Made made = factory(lower, label, fields, path, m, mention, webhookSecret, callbackKey);
        diagnostics.addAll(afterEach.apply(path, m));
        List<DigestSchedule> digests = digests(keys.get("digest"), lower);
        if (made != null && name != null && digests != null && hookOk) {
            SourceText.Position p = SourceText.of(m);
            specs.add(new ReceiverSpec(name, lower, file, p.line(), p.column(), made.receiver(), digests,
                    digests.isEmpty() ? null : made.reports(), webhookSecret, mention, callbackKey));
        }
    }

    /**
     * The schedule layers a chat receiver mentions the on-call person of ({@code mention: [gpu-platform/primary]});
     * none without {@code mention:}, null after an error. Whether they exist is checked against the on-call file
     * when the receiver is made (docs/oncall.md).
     */
    private List<MentionRef> mention(NodeTuple entry, String type) {
        if (entry == null) {
            return List.of();
        }
        if (!MENTION_TYPES.contains(type)) {
            error(entry.getKeyNode(), "`mention` is for chat receivers that can mention people ("
                    + String.join(", ", MENTION_TYPES) + "), not " + type);
            return null;
        }
        Node value = entry.getValueNode();
        List<Node> items = value instanceof SequenceNode seq ? seq.getValue() : List.of(value);
        List<MentionRef> out = new ArrayList<>();
        boolean ok = true;
        for (Node item : items) {
            String text = item instanceof ScalarNode s ? s.getValue().strip() : "";
            String[] parts = text.split("/", -1);
            if (text.isEmpty() || parts.length > 2 || parts[0].isEmpty() || parts.length == 2 && parts[1].isEmpty()) {
                error(item, "`mention` takes schedule layers such as `gpu-platform/primary` (or `gpu-platform` for "
                        + "its first layer)");
                ok = false;
                continue;
            }
            SourceText.Position p = SourceText.of(item);
            out.add(new MentionRef(parts[0], parts.length == 2 ? parts[1] : null, file, p.line(), p.column()));
        }
        return ok ? out : null;
    }

    /** The signed acknowledge link of a chat bot without callbacks, pointing at the gateway; null without a secret. */
    private static AckLink ackLink(Wiring w, String name, Secret secret) {
        return secret == null ? null : new AckLink(w.externalUrl(), name, secret.reveal(), AckLink.DEFAULT_TTL);
    }

    /** The receiver's digest schedules (none without {@code digest:}); null when one is wrong. */
    private List<DigestSchedule> digests(NodeTuple entry, String type) {
        if (entry == null) {
            return List.of();
        }
        if (!DIGEST_TYPES.contains(type)) {
            error(entry.getKeyNode(), "`digest` is for chat receivers (" + String.join(", ", DIGEST_TYPES)
                    + "), not " + type + ": digests are read by people, pages and tickets are not summarised");
            return null;
        }
        DigestReader reader = new DigestReader(file);
        List<DigestSchedule> schedules = reader.read(entry.getValueNode());
        diagnostics.addAll(reader.diagnostics());
        return reader.diagnostics().isEmpty() ? schedules : null;
    }

    /**
     * The secret that proves the receiver's paging service sent an acknowledgement webhook: null without
     * {@code webhookSecret:}, and null with an error at its place when it is on another type or cannot be read.
     */
    private Secret webhookSecret(NodeTuple entry, Map<?, ?> values, String type, String path, MappingNode node) {
        if (entry == null) {
            return null;
        }
        if (!HOOK_TYPES.contains(type)) {
            error(entry.getKeyNode(), "`webhookSecret` is for receivers whose service reports "
                    + "acknowledgements back (" + String.join(", ", HOOK_TYPES) + "), not " + type);
            return null;
        }
        Fields f = new Fields(values, path);
        Secret secret = secrets.read(f, "webhookSecret", true);
        problems(f.problems(), path, node);
        return secret;
    }

    /**
     * The Encrypt Key of the Feishu app whose card callbacks the gateway takes for this receiver: null without
     * {@code callbackKey:}, and null with an error at its place when it is on another type or cannot be read.
     */
    private Secret callbackKey(NodeTuple entry, Map<?, ?> values, String type, String path, MappingNode node) {
        if (entry == null) {
            return null;
        }
        if (!type.equals("feishu")) {
            error(entry.getKeyNode(), "`callbackKey` is the Encrypt Key of a Feishu app whose card callbacks the "
                    + "gateway takes, so it is for feishu receivers only, not " + type);
            return null;
        }
        Fields f = new Fields(values, path);
        Secret secret = secrets.read(f, "callbackKey", true);
        problems(f.problems(), path, node);
        return secret;
    }

    /** What a receiver entry makes: the receiver, and for chat types the target its digests are posted to. */
    private record Made(ReceiverSpec.Factory receiver, ReceiverSpec.ReportFactory reports) {
    }

    private Made factory(String type, String name, Map<Object, Object> fields, String path, MappingNode node,
                         List<MentionRef> mention, Secret hookSecret, Secret callbackKey) {
        return switch (type) {
            case "slack" -> chat(SlackConfig.parse(fields, path, secrets), path, node,
                    c -> w -> new SlackReceiver(name, c, w.chatSending(), w.mentions(mention, "slack"),
                            hookSecret != null),
                    c -> w -> new SlackReportTarget(name, c, w.chatSending()));
            case "teams" -> chat(TeamsConfig.parse(fields, path, secrets), path, node,
                    c -> w -> new TeamsReceiver(name, c, w.chatSending(), w.mentions(mention, "teams")),
                    c -> w -> new TeamsReportTarget(name, c, w.chatSending()));
            case "feishu" -> chat(FeishuConfig.parse(fields, path, secrets), path, node,
                    c -> w -> new FeishuReceiver(name, c, w.chatSending(), w.mentions(mention, "feishu"),
                            ackLink(w, name, hookSecret), callbackKey != null),
                    c -> w -> new FeishuReportTarget(name, c, w.chatSending()));
            case "dingtalk" -> chat(DingTalkConfig.parse(fields, path, secrets), path, node,
                    c -> w -> new DingTalkReceiver(name, c, w.chatSending(), w.mentions(mention, "dingtalk"),
                            ackLink(w, name, hookSecret)),
                    c -> w -> new DingTalkReportTarget(name, c, w.chatSending()));
            case "wecom" -> chat(WeComConfig.parse(fields, path, secrets), path, node,
                    c -> w -> new WeComReceiver(name, c, w.chatSending(), w.mentions(mention, "wecom"),
                            ackLink(w, name, hookSecret)),
                    c -> w -> new WeComReportTarget(name, c, w.chatSending()));
            case "pagerduty" -> made(parsed(PagerDutyConfig.parse(fields, path, secrets), path, node,
                    c -> w -> PagerDutyReceiver.create(w.vertx(), w.client(), name, c)));
            case "opsgenie" -> made(parsed(OpsgenieConfig.parse(fields, path, secrets), path, node,
                    c -> w -> OpsgenieReceiver.create(w.vertx(), w.client(), name, c)));
            case "jira" -> made(parsed(JiraConfig.parse(fields, path, secrets), path, node,
                    c -> w -> JiraReceiver.create(w.vertx(), w.client(), name, c)));
            case "alertmanager" -> made(parsed(AlertmanagerConfig.parse(fields, path, secrets), path, node,
                    c -> w -> AlertmanagerReceiver.create(w.vertx(), w.client(), name, c)));
            case "webhook" -> made(webhook(fields, path, name, node));
            case "console" -> console(fields, path, name, node);
            default -> throw new IllegalStateException("type " + type + " is in TYPES but has no reader");
        };
    }

    private static Made made(ReceiverSpec.Factory receiver) {
        return receiver == null ? null : new Made(receiver, null);
    }

    private <C> Made chat(Parsed<C> parsed, String path, MappingNode node, Function<C, ReceiverSpec.Factory> make,
                          Function<C, ReceiverSpec.ReportFactory> reports) {
        ReceiverSpec.Factory receiver = parsed(parsed, path, node, make);
        return receiver == null ? null : new Made(receiver, reports.apply(parsed.value()));
    }

    private <C> ReceiverSpec.Factory parsed(Parsed<C> parsed, String path, MappingNode node,
                                            Function<C, ReceiverSpec.Factory> make) {
        if (!parsed.ok()) {
            problems(parsed.problems(), path, node);
            return null;
        }
        return make.apply(parsed.value());
    }

    /** The webhook's parser takes resolved credentials, so its secret fields are resolved here first. */
    private ReceiverSpec.Factory webhook(Map<Object, Object> fields, String path, String name, MappingNode node) {
        Fields f = new Fields(fields, path);
        Map<Object, Object> resolved = new LinkedHashMap<>(fields);
        if (f.has("bearerToken")) {
            Secret token = secrets.read(f, "bearerToken", true);
            resolved.put("bearerToken", token == null ? null : token.reveal());
        }
        if (fields.get("basicAuth") instanceof Map<?, ?> basic) {
            Fields b = f.nested("basicAuth");
            Map<Object, Object> auth = new LinkedHashMap<>(basic);
            Secret password = secrets.read(b, "password", true);
            auth.put("password", password == null ? null : password.reveal());
            resolved.put("basicAuth", auth);
        }
        if (!f.problems().isEmpty()) {
            problems(f.problems(), path, node);
            return null;
        }
        return parsed(WebhookConfig.parse(resolved, path), path, node,
                c -> w -> WebhookReceiver.create(w.vertx(), w.client(), name, c, w.externalUrl()));
    }

    private Made console(Map<Object, Object> fields, String path, String name, MappingNode node) {
        Fields f = new Fields(fields, path);
        f.only(Set.of("color"));
        Object color = fields.get("color");
        if (color != null && !(color instanceof Boolean)) {
            f.problem("color", "expected true or false");
        }
        if (!f.problems().isEmpty()) {
            problems(f.problems(), path, node);
            return null;
        }
        boolean colour = Boolean.TRUE.equals(color);
        return new Made(w -> new ConsoleReceiver(name, w.console(), colour, InstantSource.system()),
                w -> new ConsoleReportTarget(name, w.console()));
    }

    private void problems(List<ConfigProblem> problems, String path, MappingNode node) {
        for (ConfigProblem p : problems) {
            error(place(node, p.path(), path), p.toString());
        }
    }

    /** The node a field path names, as deep as the file has it; the receiver itself when none matches. */
    private static Node place(MappingNode receiver, String fieldPath, String prefix) {
        if (!fieldPath.startsWith(prefix + ".")) {
            return receiver;
        }
        Node at = receiver;
        for (String part : fieldPath.substring(prefix.length() + 1).split("\\.")) {
            String key = part.replaceAll("\\[\\d+]$", "");
            if (!(at instanceof MappingNode m)) {
                break;
            }
            Node next = null;
            for (NodeTuple t : m.getValue()) {
                if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals(key)) {
                    next = t.getValueNode() instanceof ScalarNode ? t.getKeyNode() : t.getValueNode();
                    break;
                }
            }
            if (next == null) {
                break;
            }
            at = next;
        }
        return at;
    }

    private String text(NodeTuple entry, Node owner, String key, String missing) {
        if (entry == null) {
            error(owner, missing);
            return null;
        }
        Node v = entry.getValueNode();
        if (!(v instanceof ScalarNode s) || Tag.NULL.equals(s.getTag()) || s.getValue().isBlank()) {
            error(v, "`" + key + "` must be a non-empty name");
            return null;
        }
        return s.getValue();
    }

    private void error(Node node, String message) {
        SourceText.Position p = SourceText.of(node);
        diagnostics.add(Diagnostic.error(file, p.line(), p.column(), message));
    }
}
