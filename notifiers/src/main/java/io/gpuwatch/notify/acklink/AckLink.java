package io.gpuwatch.notify.acklink;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;

/**
 * A signed one-click link that acknowledges alerts, for chat bots that give no callback for a button (Feishu,
 * DingTalk and WeCom custom bots): {@code {base}/api/v1/receivers/{receiver}/ack-link?f=…&exp=…&sig=…}, where
 * {@code sig} is the hex HMAC-SHA256, under the receiver's {@code webhookSecret}, of the receiver, the
 * fingerprints and the expiry. The receiver signs it into the message; the gateway checks it.
 */
public record AckLink(String base, String receiver, String secret, Duration ttl) {
    /** How long a link works by default: a day covers a night's page and the morning after. */
    public static final Duration DEFAULT_TTL = Duration.ofHours(24);
    /** Fingerprints are hex, so a link for a big batch stays far below any URL limit. */
    static final int MAX_FINGERPRINTS = 50;

    /** The link for {@code fingerprints} (the first {@link #MAX_FINGERPRINTS}), working until {@code now + ttl}. */
    public String url(List<String> fingerprints, Instant now) {
        String f = String.join(",", fingerprints.subList(0, Math.min(fingerprints.size(), MAX_FINGERPRINTS)));
        long exp = now.plus(ttl).getEpochSecond();
        return base.replaceAll("/+$", "") + "/api/v1/receivers/" + URLEncoder.encode(receiver, StandardCharsets.UTF_8)
                + "/ack-link?f=" + f + "&exp=" + exp + "&sig=" + signature(secret, receiver, f, exp);
    }

    /** The hex HMAC-SHA256 of a link's fields under {@code secret}. */
    public static String signature(String secret, String receiver, String fingerprints, long exp) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal((receiver + "\n" + fingerprints + "\n" + exp)
                    .getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM cannot compute HMAC-SHA256", e);
        }
    }

    /** True when {@code sig} signs the fields under {@code secret}; compared in constant time. */
    public static boolean valid(String secret, String receiver, String fingerprints, long exp, String sig) {
        return sig != null && MessageDigest.isEqual(signature(secret, receiver, fingerprints, exp)
                .getBytes(StandardCharsets.US_ASCII), sig.getBytes(StandardCharsets.US_ASCII));
    }
}
