package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.ack.PagerHook;
import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.notify.acklink.AckLink;
import io.gpuwatch.notify.secret.Secret;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static io.gpuwatch.gateway.http.ChatHookGateway.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The signed one-click acknowledge links of Feishu, DingTalk and WeCom messages: the link a receiver signs opens a
 * page that changes nothing, its form acknowledges the alerts under the name given (audited), once; a changed,
 * foreign, expired or used link is refused.
 */
@ExtendWith(VertxExtension.class)
class AckLinksTest {
    private static final String SECRET = "8f742231b10e8888abcd99yyyzzz85a5";

    @TempDir
    Path dir;

    private final ChatHookGateway hooks = new ChatHookGateway();
    private final AtomicLong now = hooks.now;

    private Gateway start(Vertx vertx) throws Exception {
        return hooks.start(vertx, dir, new PagerHook("chat", PagerHook.Service.FEISHU, Secret.of(SECRET, "test")));
    }

    private static HttpResponse<Buffer> get(WebClient web, Gateway g, String url) throws Exception {
        return await(web.getAbs(url.replace("http://gpuwatch.example", "http://127.0.0.1:" + g.port())).send());
    }

    private static HttpResponse<Buffer> post(WebClient web, Gateway g, String url, String form) throws Exception {
        return await(web.postAbs(url.replace("http://gpuwatch.example", "http://127.0.0.1:" + g.port()))
                .putHeader("Content-Type", "application/x-www-form-urlencoded").sendBuffer(Buffer.buffer(form)));
    }

    @Test
    void aSignedLinkShowsThenAcknowledgesOnceUnderTheNameGiven(Vertx vertx) throws Exception {
        Gateway g = start(vertx);
        WebClient web = WebClient.create(vertx);
        List<String> live = g.ledger().live().stream().map(Alert::fingerprint).sorted().toList();
        AckLink signer = new AckLink("http://gpuwatch.example/", "chat", SECRET, AckLink.DEFAULT_TTL);
        String link = signer.url(live, Instant.ofEpochMilli(now.get()));
        assertTrue(link.startsWith("http://gpuwatch.example/api/v1/receivers/chat/ack-link?f=" + live.get(0) + ","
                + live.get(1) + "&exp=" + (now.get() / 1000 + 86_400) + "&sig="), link);

        HttpResponse<Buffer> page = get(web, g, link);
        assertEquals(200, page.statusCode(), page.bodyAsString());
        assertTrue(page.bodyAsString().contains("too-hot on gpu-7"), page.bodyAsString());
        assertTrue(page.bodyAsString().contains("<form method=\"post\">"));
        assertTrue(g.acknowledgements().all().isEmpty(), "opening the link (as a chat preview does) changes nothing");

        assertEquals(401, get(web, g, link.replace("&exp=", "&exp=9")).statusCode(), "a changed expiry");
        assertEquals(401, get(web, g, link.replace("f=" + live.get(0) + ",", "f=")).statusCode(),
                "fewer alerts than signed");
        String foreign = new AckLink("http://gpuwatch.example", "chat", "another-secret", AckLink.DEFAULT_TTL)
                .url(live, Instant.ofEpochMilli(now.get()));
        assertEquals(401, get(web, g, foreign).statusCode(), "signed with another secret");
        assertEquals(404, get(web, g, link.replace("/chat/", "/quiet/")).statusCode(), "a receiver without one");
        String old = signer.url(live, Instant.ofEpochMilli(now.get()).minus(AckLink.DEFAULT_TTL).minusSeconds(1));
        assertEquals(410, get(web, g, old).statusCode(), "expired");
        assertEquals(400, post(web, g, link, "by=").statusCode(), "no name");

        HttpResponse<Buffer> done = post(web, g, link, "by=Lin+Chen");
        assertEquals(200, done.statusCode(), done.bodyAsString());
        assertTrue(done.bodyAsString().contains("2 of 2 alerts acknowledged as Lin Chen (via Feishu link)"),
                done.bodyAsString());
        Acknowledgement ack = g.acknowledgements().of(live.get(1)).orElseThrow();
        assertEquals("Lin Chen (via Feishu link)", ack.by());
        assertEquals("link", ack.source());
        assertEquals(409, post(web, g, link, "by=Mallory").statusCode(), "a link is taken once");
        assertEquals(409, get(web, g, link).statusCode());
        assertEquals("Lin Chen (via Feishu link)", g.acknowledgements().of(live.get(1)).orElseThrow().by());

        List<JsonObject> acks = ChatHookGateway.audit(web, g, "alert.ack");
        assertEquals(2, acks.size());
        assertEquals("link:chat", acks.get(0).getString("who"));
        assertEquals("by Lin Chen (via Feishu link)", acks.get(0).getString("detail"));
        assertEquals("127.0.0.1", acks.get(0).getString("remote"));
    }
}
