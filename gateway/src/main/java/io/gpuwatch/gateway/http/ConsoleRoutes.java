package io.gpuwatch.gateway.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The web console (docs/console.md): static files from the gateway's own jar ({@code console/} on the class
 * path), served at {@code /console/}, with {@code /} and {@code /console} sent there. Nothing is fetched from
 * elsewhere at run time; the page talks to the gateway only through the documented API. A file is read once, on
 * a worker thread, and kept.
 */
final class ConsoleRoutes {
    static final String ROOT = "/console/";
    private static final String RESOURCES = "console/";
    /** File names the console ships: no traversal, no hidden files. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]*(/[a-z0-9][a-z0-9_-]*)*\\.[a-z0-9]+");
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8", "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8", "svg", "image/svg+xml", "txt", "text/plain; charset=utf-8");
    /** The page may load and call only what this gateway serves. */
    private static final String POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self'; "
            + "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

    /** A file as served: its bytes, type and entity tag. */
    private record Served(Buffer body, String type, String etag) {
    }

    // empty: the jar has no such file
    private final Map<String, Optional<Served>> files = new HashMap<>();

    void mount(Router router) {
        // Vert.x matches a path with or without its trailing slash, so the exact path is checked here
        router.get("/").handler(ctx -> {
            if (ctx.request().path().equals("/")) {
                redirect(ctx);
            } else {
                ctx.next();
            }
        });
        router.get(ROOT + "*").handler(ctx -> {
            if (ctx.request().path().equals("/console")) {
                redirect(ctx);
            } else {
                serve(ctx);
            }
        });
    }

    private static void redirect(RoutingContext ctx) {
        ctx.response().setStatusCode(302).putHeader("Location", ROOT).end();
    }

    private void serve(RoutingContext ctx) {
        String name = ctx.request().path().substring(ROOT.length());
        String file = name.isEmpty() ? "index.html" : name;
        if (!NAME.matcher(file).matches() || !TYPES.containsKey(extension(file))) {
            Replies.text(ctx, 404, "no such console file: " + name + "\n");
            return;
        }
        Optional<Served> held = files.get(file);
        if (held != null) {
            reply(ctx, file, held);
            return;
        }
        ctx.vertx().executeBlocking(() -> read(file)).onComplete(ar -> {
            if (ar.failed()) {
                Replies.text(ctx, 500, "the console file " + file + " could not be read: " + ar.cause().getMessage()
                        + "\n");
                return;
            }
            files.put(file, ar.result());
            reply(ctx, file, ar.result());
        });
    }

    private static void reply(RoutingContext ctx, String file, Optional<Served> served) {
        if (served.isEmpty()) {
            Replies.text(ctx, 404, "no such console file: " + file + "\n");
            return;
        }
        Served s = served.get();
        ctx.response().putHeader("Content-Security-Policy", POLICY).putHeader("X-Content-Type-Options", "nosniff")
                .putHeader("Referrer-Policy", "no-referrer").putHeader("X-Frame-Options", "DENY")
                // revalidated every time, so a new gateway's console is never mixed with an old one's
                .putHeader("Cache-Control", "no-cache").putHeader("ETag", s.etag());
        if (s.etag().equals(ctx.request().getHeader("If-None-Match"))) {
            ctx.response().setStatusCode(304).end();
            return;
        }
        ctx.response().putHeader("Content-Type", s.type()).end(s.body());
    }

    /** The file from the class path, on a worker thread. */
    private static Optional<Served> read(String file) {
        try (InputStream in = ConsoleRoutes.class.getClassLoader().getResourceAsStream(RESOURCES + file)) {
            if (in == null) {
                return Optional.empty();
            }
            byte[] bytes = in.readAllBytes();
            String etag = "\"" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 8)
                    + "\"";
            return Optional.of(new Served(Buffer.buffer(bytes), TYPES.get(extension(file)), etag));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String extension(String file) {
        return file.substring(file.lastIndexOf('.') + 1);
    }
}
