package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.store.Acknowledgement;
import io.vertx.core.json.JsonObject;

import java.time.Instant;

/**
 * An acknowledgement as the cluster map {@value Cluster#ACKS} holds it, under its alert's fingerprint:
 * {@code {"v":1, "fingerprint", "by", "at", "comment", "source"}}, the time in RFC 3339, and
 * {@code "withdrawn": true} for a withdrawal (absent otherwise, so gateways that predate it read the rest).
 */
final class AckForm implements SharedForm<Acknowledgement> {
    static final AckForm INSTANCE = new AckForm();

    private AckForm() {
    }

    @Override
    public String kind() {
        return "acknowledgement";
    }

    @Override
    public String key(Acknowledgement a) {
        return a.fingerprint();
    }

    @Override
    public String encode(Acknowledgement a) {
        JsonObject json = new JsonObject().put("v", VERSION).put("fingerprint", a.fingerprint()).put("by", a.by())
                .put("at", SharedForm.millis(a.at()).toString()).put("comment", a.comment())
                .put("source", a.source());
        return (a.withdrawn() ? json.put("withdrawn", true) : json).encode();
    }

    @Override
    public Acknowledgement decode(String key, String text) {
        JsonObject json = FormReader.object(kind(), key, text);
        String fingerprint = FormReader.text(json, kind(), key, "fingerprint");
        if (!fingerprint.equals(key)) {
            throw new IllegalArgumentException("acknowledgement " + key + ": its fingerprint field says "
                    + fingerprint);
        }
        Object withdrawn = json.getValue("withdrawn");
        if (withdrawn != null && !(withdrawn instanceof Boolean)) {
            throw new IllegalArgumentException("acknowledgement " + key + ": withdrawn must be true or false, got "
                    + withdrawn);
        }
        return new Acknowledgement(fingerprint, FormReader.text(json, kind(), key, "by"),
                FormReader.time(json, kind(), key, "at"), FormReader.optionalText(json, kind(), key, "comment"),
                FormReader.optionalText(json, kind(), key, "source"), Boolean.TRUE.equals(withdrawn));
    }

    @Override
    public Instant version(Acknowledgement a) {
        return a.at();
    }
}
