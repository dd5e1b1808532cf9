package io.gpuwatch.gateway.digest;

import java.time.Duration;

/** Short human durations as the alerting file writes them: {@code 45s}, {@code 28m}, {@code 1h5m}, {@code 2d}. */
final class Durations {
    private Durations() {
    }

    static String format(Duration d) {
        long s = Math.max(0, d.getSeconds());
        if (s == 0) {
            return "0s";
        }
        StringBuilder sb = new StringBuilder();
        if (s >= 86_400 && s % 3600 == 0) {
            long h = s / 3600;
            sb.append(h / 24).append('d');
            if (h % 24 > 0) {
                sb.append(h % 24).append('h');
            }
            return sb.toString();
        }
        if (s >= 3600) {
            sb.append(s / 3600).append('h');
        }
        if (s % 3600 >= 60) {
            sb.append(s % 3600 / 60).append('m');
        }
        if (s % 60 > 0 && s < 3600) {
            sb.append(s % 60).append('s');
        }
        return sb.toString();
    }
}
