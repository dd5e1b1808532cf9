package io.gpuwatch.notify.receiver.feishu;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;

/**
 * Feishu's bot signature: Base64(HMAC-SHA256) keyed with {@code timestamp + "\n" + secret} over empty data,
 * the timestamp in Unix seconds. (DingTalk's key/data order is the other way round; Feishu rejects it with 19021.)
 */
final class FeishuSignature {
    private FeishuSignature() {
    }

    static String sign(long epochSeconds, String secret) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec((epochSeconds + "\n" + secret).getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return Base64.getEncoder().encodeToString(mac.doFinal(new byte[0]));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
