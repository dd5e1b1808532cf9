package io.gpuwatch.notify;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RedactionTest {
    @Test
    void urlKeepsSchemeHostAndPortOnly() {
        assertEquals("https://hooks.slack.com/…", Redaction.url("https://hooks.slack.com/services/T0/B0/XXXX"));
        assertEquals("http://10.0.0.5:9093/…", Redaction.url("http://10.0.0.5:9093/api?token=abc"));
        assertEquals("https://qyapi.weixin.qq.com/…", Redaction.url("https://user:pw@qyapi.weixin.qq.com/send?key=k"));
        assertEquals("http://[::1]:8080", Redaction.url("http://[::1]:8080/"));
        assertEquals("(unparseable URL)", Redaction.url("http://exa mple.com/secret"));
        assertEquals("(no URL)", Redaction.url(null));
    }

    @Test
    void textCutsEveryUrlAndHidesSecrets() {
        assertEquals("POST https://hooks.example.com/… failed; retry https://other:8443/… (code …)",
                Redaction.text("POST https://u:p@hooks.example.com/a/b?c=d failed; retry https://other:8443/x "
                        + "(code s3cret)", List.of("s3cret")));
        assertEquals("executing POST … for server localhost:8080",
                Redaction.text("executing POST /hooks/abc?sig=xyz for server localhost:8080",
                        List.of("/hooks/abc", "/hooks/abc?sig=xyz")));
        assertEquals("", Redaction.text(null, List.of()));
    }

    @Test
    void deliveryFailureRedactsWhateverItIsGiven() {
        DeliveryFailure f = new DeliveryFailure("ops", 6, "HTTP 503 from https://h.example/secret?x=1", true);
        assertEquals("receiver 'ops' failed after 6 attempts: HTTP 503 from https://h.example/…", f.getMessage());
        assertEquals("HTTP 503 from https://h.example/…", f.lastError());
        assertEquals("receiver 'ops' failed after 1 attempt (not retried): HTTP 400",
                new DeliveryFailure("ops", 1, "HTTP 400", false).getMessage());
    }
}
