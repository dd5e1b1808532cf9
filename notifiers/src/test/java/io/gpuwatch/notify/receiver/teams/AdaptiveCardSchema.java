package io.gpuwatch.notify.receiver.teams;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The official Adaptive Card 1.5.0 JSON schema (schemas/1.5.0/adaptive-card.json of microsoft/AdaptiveCards,
 * commit 93695cf2df1117ab08e36ebe707d0ced18e4e9b3), vendored under test resources, as a check on what we send.
 */
final class AdaptiveCardSchema {
    private static final JsonSchema SCHEMA = load();
    private static final ObjectMapper JSON = new ObjectMapper();

    private AdaptiveCardSchema() {
    }

    /** The problems the schema finds in {@code card} (an AdaptiveCard object), empty when it is valid. */
    static Set<ValidationMessage> problems(JsonObject card) {
        try {
            return SCHEMA.validate(JSON.readTree(card.encode()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The Workflows message holds one Adaptive Card that the schema accepts and that declares version 1.5. The
     * {@code msteams} property is Teams' host extension (full width), which the schema does not describe and
     * Teams documents separately, so it is checked here and left out of the schema check.
     */
    static void assertValid(JsonObject message) {
        JsonObject attachment = message.getJsonArray("attachments").getJsonObject(0);
        assertEquals("application/vnd.microsoft.card.adaptive", attachment.getString("contentType"));
        JsonObject card = attachment.getJsonObject("content").copy();
        assertEquals("1.5", card.getString("version"));
        JsonObject msteams = (JsonObject) card.remove("msteams");
        assertEquals(new JsonObject().put("width", "full"), msteams);
        Set<ValidationMessage> problems = problems(card);
        assertTrue(problems.isEmpty(), "the card breaks the Adaptive Card 1.5 schema: " + problems);
    }

    private static JsonSchema load() {
        try (InputStream in = AdaptiveCardSchema.class.getResourceAsStream("/adaptive-card/1.5.0.json")) {
            ObjectNode schema = (ObjectNode) new ObjectMapper().readTree(in);
            // The file names itself with draft-04's "id" while declaring draft-06, which spells it "$id".
            schema.set("$id", schema.remove("id"));
            return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V6).getSchema(schema);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
