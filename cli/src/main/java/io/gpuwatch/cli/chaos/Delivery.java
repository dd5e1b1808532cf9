package io.gpuwatch.cli.chaos;

/**
 * One alert of one notification the bench's webhook took in.
 *
 * @param atMs when it arrived, ms after the run's start
 * @param key the request's Idempotency-Key header, or null when it had none
 * @param startsAt the alert's startsAt as sent (RFC 3339), which a re-send of the same firing repeats
 * @param endsAt the alert's endsAt as sent; the zero time while it fires
 */
record Delivery(long atMs, String key, String fingerprint, String alertname, String node, String status,
                String startsAt, String endsAt) {
    boolean firing() {
        return "firing".equals(status);
    }
}
