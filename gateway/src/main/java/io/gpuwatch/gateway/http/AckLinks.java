package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.ack.PagerHook;
import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.gateway.store.AuditEntry;
import io.gpuwatch.notify.acklink.AckLink;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The signed one-click links that Feishu, DingTalk and WeCom messages carry ({@link AckLink}), at
 * {@code /api/v1/receivers/{receiver}/ack-link}: a GET only shows the alerts and asks who acknowledges them, since
 * chat apps open links to preview them; the POST of that page acknowledges them. Both check the link's signature
 * (constant time) and expiry; a link is taken once, a second use is refused. Every acknowledgement is audited with
 * the name given and where the request came from.
 */
final class AckLinks {
    private static final int NAME_CHARS = 100;

    private final ApiHost gateway;
    private final AckRecorder acks;
    /** Signatures of links already used, until they expire; owned by the event loop. */
    private final Map<String, Long> used = new HashMap<>();

    AckLinks(ApiHost gateway, AckRecorder acks) {
        this.gateway = gateway;
        this.acks = acks;
    }

    void mount(Router router) {
        String path = "/api/v1/receivers/:receiver/ack-link";
        router.get(path).handler(this::page);
        router.post(path).handler(BodyHandler.create().setBodyLimit(4096)).handler(this::acknowledge);
    }

    /** The link's fingerprints after its checks, or null after answering. */
    private List<String> checked(RoutingContext ctx, Optional<PagerHook> hook, Instant now) {
        if (hook.isEmpty()) {
            html(ctx, 404, "No such link", "<p>This receiver signs no acknowledge links.</p>");
            return null;
        }
        String f = ctx.request().getParam("f", "");
        String exp = ctx.request().getParam("exp", "");
        String sig = ctx.request().getParam("sig");
        if (!exp.matches("\\d{1,12}") || !f.matches("[0-9a-f]{1,64}(,[0-9a-f]{1,64})*")
                || !AckLink.valid(hook.get().secret().reveal(), hook.get().receiver(), f, Long.parseLong(exp), sig)) {
            html(ctx, 401, "Link not valid", "<p>This link is not one gpuwatch signed, or it was changed.</p>");
            return null;
        }
        if (Long.parseLong(exp) < now.getEpochSecond()) {
            html(ctx, 410, "Link expired", "<p>This link has expired; acknowledge the alerts in the console or "
                    + "through the API.</p>");
            return null;
        }
        used.values().removeIf(e -> e < now.getEpochSecond());
        if (used.containsKey(sig)) {
            html(ctx, 409, "Link already used", "<p>This link was already used.</p>");
            return null;
        }
        return List.of(f.split(","));
    }

    private Optional<PagerHook> hook(RoutingContext ctx) {
        String receiver = ctx.pathParam("receiver");
        return gateway.pagerHooks().stream().filter(h -> h.service().signsLinks() && h.receiver().equals(receiver))
                .findFirst();
    }

    private void page(RoutingContext ctx) {
        List<String> fingerprints = checked(ctx, hook(ctx), gateway.clock().instant());
        if (fingerprints == null) {
            return;
        }
        StringBuilder list = new StringBuilder("<ul>");
        for (String fp : fingerprints) {
            list.append("<li><code>").append(fp).append("</code> ").append(escape(describe(fp))).append("</li>");
        }
        list.append("</ul>");
        html(ctx, 200, "Acknowledge alerts", list + "<form method=\"post\"><label>Your name <input name=\"by\" "
                + "required maxlength=\"" + NAME_CHARS + "\"></label> <button type=\"submit\">Acknowledge</button>"
                + "</form>");
    }

    private void acknowledge(RoutingContext ctx) {
        Instant now = gateway.clock().instant();
        Optional<PagerHook> hook = hook(ctx);
        List<String> fingerprints = checked(ctx, hook, now);
        if (fingerprints == null) {
            return;
        }
        String name = ctx.request().getFormAttribute("by");
        if (name == null || name.isBlank() || name.strip().length() > NAME_CHARS) {
            html(ctx, 400, "Who acknowledges?", "<p>Give your name (up to " + NAME_CHARS + " characters): the "
                    + "acknowledgement is recorded under it.</p>");
            return;
        }
        // taken before the store answers, so a second click meanwhile is refused; given back if nothing was kept
        String sig = ctx.request().getParam("sig");
        used.put(sig, Long.parseLong(ctx.request().getParam("exp")));
        String service = hook.get().service().name().charAt(0) + hook.get().service().name().substring(1)
                .toLowerCase(Locale.ROOT);
        String by = name.strip().replaceAll("\\p{Cntrl}", " ") + " (via " + service + " link)";
        String remote = ctx.request().remoteAddress() == null ? "" : ctx.request().remoteAddress().hostAddress();
        List<String> done = new ArrayList<>();
        Future<Void> chain = Future.succeededFuture();
        for (String fp : fingerprints) {
            chain = chain.compose(v -> one(fp, by, hook.get(), now, remote, done));
        }
        chain.onSuccess(v -> html(ctx, 200, "Acknowledged", "<p>" + done.size() + " of " + fingerprints.size()
                        + " alerts acknowledged as " + escape(by) + "; the others had ended or were already "
                        + "acknowledged.</p>"))
                .onFailure(e -> used.remove(sig))
                .onFailure(e -> html(ctx, 503, "Not recorded", "<p>The acknowledgement could not be stored: "
                        + escape(String.valueOf(e.getMessage())) + "</p>"));
    }

    private Future<Void> one(String fp, String by, PagerHook hook, Instant now, String remote, List<String> done) {
        Optional<Alert> live = gateway.ledger().live().stream().filter(a -> a.fingerprint().equals(fp)).findFirst();
        if (live.isEmpty() || gateway.acknowledgements().of(fp, live.get().activeSince()).isPresent()) {
            return Future.succeededFuture();
        }
        Acknowledgement ack = new Acknowledgement(fp, by, now, "acknowledged by a signed link", "link");
        return acks.record(ack, new AuditEntry(0, now, "link:" + hook.receiver(), "alert.ack", fp, "by " + by,
                        remote))
                .onSuccess(v -> gateway.cluster().ifPresent(c -> c.share(ack)))
                .onSuccess(v -> acks.tellPagers(live.get(), false))
                .onSuccess(v -> done.add(fp));
    }

    private String describe(String fp) {
        Optional<Alert> live = gateway.ledger().live().stream().filter(a -> a.fingerprint().equals(fp)).findFirst();
        if (live.isEmpty()) {
            return "(ended)";
        }
        Alert a = live.get();
        String what = a.labels().getOrDefault("alertname", "?") + " on " + a.labels().getOrDefault("node", "?");
        return gateway.acknowledgements().of(fp, a.activeSince()).map(ack -> what + " (acknowledged by " + ack.by()
                + ")").orElse(what);
    }

    private static void html(RoutingContext ctx, int status, String title, String body) {
        ctx.response().setStatusCode(status).putHeader("Content-Type", "text/html; charset=utf-8")
                .putHeader("Cache-Control", "no-store")
                .putHeader("Referrer-Policy", "no-referrer")
                .end("<!doctype html><html><head><meta charset=\"utf-8\"><title>" + title
                        + " · gpuwatch</title></head><body><h1>" + title + "</h1>" + body + "</body></html>\n");
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
