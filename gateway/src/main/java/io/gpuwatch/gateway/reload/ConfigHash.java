package io.gpuwatch.gateway.reload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A SHA-256 over the contents of the configuration files (the rule files a load reads, in their order, then the
 * alerting file), so that two gateways, or one before and after an edit, can be compared at a glance. Only the
 * contents count, not where the files live. Reads the disk: call it off the event loop.
 */
public final class ConfigHash {
    private ConfigHash() {
    }

    /** {@code sha256:<64 hex digits>} over the files {@code paths} name; a file that cannot be read counts as its error. */
    public static String of(List<Path> paths) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
        for (String file : RuleReloader.stamps(paths).keySet()) {
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(Path.of(file));
            } catch (IOException e) {
                bytes = ("unreadable: " + e.getMessage()).getBytes(StandardCharsets.UTF_8);
            }
            // each file's length first, so moving text from the end of one file to the start of the next shows
            sha.update(ByteBuffer.allocate(Long.BYTES).putLong(bytes.length).array());
            sha.update(bytes);
        }
        return "sha256:" + HexFormat.of().formatHex(sha.digest());
    }
}
