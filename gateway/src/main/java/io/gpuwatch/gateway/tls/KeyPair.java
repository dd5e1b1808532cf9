package io.gpuwatch.gateway.tls;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Whether a PEM private key belongs to a PEM certificate: it signs, the certificate's public key verifies. */
final class KeyPair {
    private static final Pattern PKCS8 = Pattern.compile(
            "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

    private KeyPair() {
    }

    /**
     * Null when the first certificate of {@code certPem} and the key of {@code keyPem} belong together, or when
     * the key is not PKCS#8 ({@code BEGIN PRIVATE KEY}), which only the TLS engine itself reads; else why not.
     */
    static String mismatch(String certPem, String keyPem) {
        Matcher m = PKCS8.matcher(keyPem);
        if (!m.find()) {
            return null;
        }
        try {
            X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(certPem.getBytes(StandardCharsets.US_ASCII)));
            PublicKey pub = cert.getPublicKey();
            PrivateKey key = KeyFactory.getInstance(pub.getAlgorithm())
                    .generatePrivate(new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(m.group(1))));
            String algorithm = pub.getAlgorithm().equals("EC") ? "SHA256withECDSA"
                    : pub.getAlgorithm().equals("RSA") ? "SHA256withRSA" : pub.getAlgorithm();
            byte[] probe = "gpuwatch".getBytes(StandardCharsets.US_ASCII);
            Signature sign = Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(probe);
            byte[] signature = sign.sign();
            Signature verify = Signature.getInstance(algorithm);
            verify.initVerify(pub);
            verify.update(probe);
            return verify.verify(signature) ? null : "the key's signature does not verify with the certificate";
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}
