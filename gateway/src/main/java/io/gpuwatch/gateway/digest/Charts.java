package io.gpuwatch.gateway.digest;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The chart images of recent digests, by id, for the HTTP API to serve to the chat services that fetch them.
 * Only the newest {@link #KEEP} are kept, in memory: a chat service fetches an image when the message is
 * posted and shows its own copy afterwards, so older ones (and all after a restart) answer 404.
 */
public final class Charts {
    /** A week of hourly digests for a handful of channels stays well under a few MB. */
    public static final int KEEP = 500;

    private final Map<String, byte[]> images = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, byte[]> eldest) {
            return size() > KEEP;
        }
    };

    /** Keeps the PNG of digest {@code id}. */
    public synchronized void put(String id, byte[] png) {
        images.put(id, png.clone());
    }

    /** The PNG of digest {@code id}, if it is still kept. */
    public synchronized Optional<byte[]> get(String id) {
        byte[] png = images.get(id);
        return png == null ? Optional.empty() : Optional.of(png.clone());
    }
}
