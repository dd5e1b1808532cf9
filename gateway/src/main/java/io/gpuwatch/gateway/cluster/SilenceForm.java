package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.match.MatcherException;
import io.gpuwatch.gateway.match.MatcherParser;
import io.gpuwatch.gateway.silence.Silence;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A silence as the cluster map {@value Cluster#SILENCES} holds it: {@code {"v":1, "id", "matchers": ["a=\"b\""],
 * "startsAt", "endsAt", "createdBy", "comment", "updatedAt"}}, times in RFC 3339, matchers as the API takes them.
 */
final class SilenceForm implements SharedForm<Silence> {
    static final SilenceForm INSTANCE = new SilenceForm();

    private SilenceForm() {
    }

    @Override
    public String kind() {
        return "silence";
    }

    @Override
    public String key(Silence s) {
        return s.id();
    }

    @Override
    public String encode(Silence s) {
        JsonArray matchers = new JsonArray();
        s.matchers().forEach(m -> matchers.add(m.toString()));
        return new JsonObject().put("v", VERSION).put("id", s.id()).put("matchers", matchers)
                .put("startsAt", SharedForm.millis(s.startsAt()).toString())
                .put("endsAt", SharedForm.millis(s.endsAt()).toString())
                .put("createdBy", s.createdBy()).put("comment", s.comment())
                .put("updatedAt", SharedForm.millis(s.updatedAt()).toString()).encode();
    }

    @Override
    public Silence decode(String key, String text) {
        JsonObject json = FormReader.object(kind(), key, text);
        String id = FormReader.text(json, kind(), key, "id");
        if (!id.equals(key)) {
            throw new IllegalArgumentException("silence " + key + ": its id field says " + id);
        }
        if (!(json.getValue("matchers") instanceof JsonArray list) || list.isEmpty()) {
            throw new IllegalArgumentException("silence " + key + ": matchers: expected a non-empty list");
        }
        List<Matcher> matchers = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            if (!(list.getValue(i) instanceof String m)) {
                throw new IllegalArgumentException("silence " + key + ": matchers[" + i + "]: expected text");
            }
            try {
                matchers.add(MatcherParser.parse(m));
            } catch (MatcherException e) {
                throw new IllegalArgumentException("silence " + key + ": matchers[" + i + "]: at character "
                        + (e.offset() + 1) + ": " + e.getMessage());
            }
        }
        return new Silence(id, matchers, FormReader.time(json, kind(), key, "startsAt"),
                FormReader.time(json, kind(), key, "endsAt"), FormReader.text(json, kind(), key, "createdBy"),
                FormReader.optionalText(json, kind(), key, "comment"), FormReader.time(json, kind(), key, "updatedAt"));
    }

    @Override
    public Instant version(Silence s) {
        return s.updatedAt();
    }
}
