package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code POST /v1/sched}: one {@code sched} frame over HTTP, the same JSON a producer sends on the probe
 * connection, for schedulers without an adapter. It proves itself with a probe token (not an API token), which
 * must allow the node it relays for ({@code ?node=}, default {@value #DEFAULT_NODE}); a frame the protocol codec
 * refuses is answered 400 with the codec's message and the field's path.
 */
final class SchedRoute {
    static final String PATH = "/v1/sched";
    static final String DEFAULT_NODE = "sched-api";
    /** A node name as hello takes it. */
    private static final Pattern NODE = Pattern.compile("[A-Za-z0-9._-]{1,253}");

    private final ApiHost gateway;
    private final FrameCodec codec = new FrameCodec();

    SchedRoute(ApiHost gateway) {
        this.gateway = gateway;
    }

    void mount(Router router) {
        router.post(PATH).handler(Replies.body()).handler(this::post);
    }

    private void post(RoutingContext ctx) {
        Optional<TokenFile.Entry> token = gateway.probeToken(bearer(ctx.request().getHeader("Authorization")));
        if (token.isEmpty()) {
            ctx.response().putHeader("WWW-Authenticate", "Bearer realm=\"gpuwatch\"");
            Replies.json(ctx, 401, new JsonObject().put("error", "a probe token is needed: Authorization: Bearer "
                    + "<token> (the tokens of gpuwatch token new, not an API token)"));
            return;
        }
        String node = Optional.ofNullable(ctx.queryParams().get("node")).orElse(DEFAULT_NODE);
        if (!NODE.matcher(node).matches()) {
            Replies.badRequest(ctx, "node", "must be 1 to 253 of the characters A-Z a-z 0-9 . _ -, as in hello, got "
                    + node);
            return;
        }
        if (!token.get().allows(node)) {
            Replies.json(ctx, 403, new JsonObject().put("error", "this probe token may not speak for node '" + node
                    + "' (it allows " + token.get().nodePattern() + "); name one with ?node="));
            return;
        }
        String type = ctx.request().getHeader("Content-Type");
        if (type == null || !type.toLowerCase().contains("json")) {
            Replies.json(ctx, 415, new JsonObject().put("error", "send the frame as application/json"));
            return;
        }
        Decoded decoded = codec.decode(ctx.body().buffer() == null ? ""
                : ctx.body().buffer().toString(StandardCharsets.UTF_8));
        if (decoded instanceof Decoded.Bad bad) {
            Replies.json(ctx, 400, new JsonObject().put("error", bad.message()).put("code", bad.code())
                    .put("field", bad.path()));
            return;
        }
        if (!(((Decoded.Ok) decoded).frame() instanceof Sched sched)) {
            Replies.badRequest(ctx, "type", "must be \"sched\" here, got \"" + ((Decoded.Ok) decoded).frame().type()
                    + "\"; other frames go over the probe connection");
            return;
        }
        if (!gateway.sched(node, sched)) {
            Replies.text(ctx, 503, "gateway stopping\n");
            return;
        }
        Replies.json(ctx, 202, new JsonObject().put("queue", sched.queue()).put("node", node)
                .put("tasks", sched.tasks().size()));
    }

    private static String bearer(String header) {
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        return header.substring(7).strip();
    }
}
