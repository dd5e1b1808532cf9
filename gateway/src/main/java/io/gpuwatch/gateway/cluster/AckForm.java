package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.store.Acknowledgement;
import io.vertx.core.json.JsonObject;

import java.time.Instant;

/**
 * An acknowledgement as the cluster map {@value Cluster#ACKS} holds it, under its alert's fingerprint:
 * {@code {"v":1, "fingerprint", "by", "at", "comment", "source"}}, the time in RFC 3339.
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
        return new JsonObject().put("v", VERSION).put("fingerprint", a.fingerprint()).put("by", a.by())
                .put("at", SharedForm.millis(a.at()).toString()).put("comment", a.comment())
                .put("source", a.source()).encode();
    }

    @Override
    public Acknowledgement decode(String key, String text) {
        JsonObject json = FormReader.object(kind(), key, text);
        String fingerprint = FormReader.text(json, kind(), key, "fingerprint");
        if (!fingerprint.equals(key)) {
            throw new IllegalArgumentException("acknowledgement " + key + ": its fingerprint field says "
                    + fingerprint);
        }
        return new Acknowledgement(fingerprint, FormReader.text(json, kind(), key, "by"),
                FormReader.time(json, kind(), key, "at"), FormReader.optionalText(json, kind(), key, "comment"),
                FormReader.optionalText(json, kind(), key, "source"));
    }

    @Override
    public Instant version(Acknowledgement a) {
        return a.at();
    }
}
