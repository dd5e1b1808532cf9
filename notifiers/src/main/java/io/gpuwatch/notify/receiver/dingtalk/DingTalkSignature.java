package io.gpuwatch.notify.receiver.dingtalk;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;

/**
 * DingTalk's robot signature: Base64(HMAC-SHA256) keyed with the secret over {@code timestamp + "\n" + secret},
 * the timestamp in Unix milliseconds, URL-encoded exactly once for the query string.
 */
final class DingTalkSignature {
    private DingTalkSignature() {
    }

    /** The signature as it goes into the query string (already URL-encoded). */
    static String sign(long epochMillis, String secret) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] raw = mac.doFinal((epochMillis + "\n" + secret).getBytes(StandardCharsets.UTF_8));
            return URLEncoder.encode(Base64.getEncoder().encodeToString(raw), StandardCharsets.UTF_8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
