package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.gateway.schedule.RosterLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import net.fortuna.ical4j.data.CalendarBuilder;
import net.fortuna.ical4j.model.Calendar;
import net.fortuna.ical4j.model.Component;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.StringReader;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code GET /api/v1/oncall} and {@code GET /api/v1/schedules/{id}.ics} on a gateway given the example roster. */
@ExtendWith(VertxExtension.class)
class ScheduleRoutesTest {
    private static final String VIEWER = "viewer-token";
    /** Saturday 12 December 2026, 10:00 in Berlin: Ana covers Wei by override. */
    private static final Instant NOW = Instant.parse("2026-12-12T09:00:00Z");

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static HttpResponse<Buffer> get(WebClient web, Gateway g, String path) throws Exception {
        return await(web.get(g.port(), "127.0.0.1", path).bearerTokenAuthentication(VIEWER).send());
    }

    @Test
    void whoIsOnCallAndTheCalendarOfASchedule(Vertx vertx) throws Exception {
        Path file = Path.of("../examples/oncall/oncall.yaml");
        RosterLoad load = Roster.load(file);
        assertTrue(load.ok(), load.diagnostics().toString());
        Gateway g = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000,
                "http://localhost"), RuleSet.empty(), () -> null, List.of(), () -> NOW)
                .access(new ApiAccess(() -> ApiTokens.of(List.of(ApiTokens.entry(VIEWER, Role.VIEWER, "dash"))),
                        Set.of(), true, 100, 100))
                .roster(load.roster(), file);
        await(vertx.deployVerticle(g));
        WebClient web = WebClient.create(vertx);
        assertEquals(401, await(web.get(g.port(), "127.0.0.1", "/api/v1/oncall").send()).statusCode());
        assertEquals(401, await(web.get(g.port(), "127.0.0.1", "/api/v1/schedules/gpu-platform.ics").send())
                .statusCode(), "a calendar needs a viewer token too");

        HttpResponse<Buffer> r = get(web, g, "/api/v1/oncall");
        assertEquals(200, r.statusCode(), r.bodyAsString());
        JsonObject body = r.bodyAsJsonObject();
        assertEquals(NOW.toString(), body.getString("at"));
        JsonObject platform = body.getJsonArray("schedules").getJsonObject(0);
        assertEquals("gpu-platform", platform.getString("id"));
        JsonObject primary = platform.getJsonArray("layers").getJsonObject(0);
        assertEquals("ana", primary.getJsonObject("person").getString("id"));
        assertEquals("Ana Souza", primary.getJsonObject("person").getString("name"));
        assertEquals("U0ANA0001", primary.getJsonObject("person").getJsonObject("contacts").getString("slack"));
        assertEquals(true, primary.getBoolean("override"));
        assertEquals("2026-12-12T17:00:00Z", primary.getString("until"));
        assertEquals("lin", platform.getJsonArray("layers").getJsonObject(1).getJsonObject("person")
                .getString("id"));
        JsonObject sun = body.getJsonArray("schedules").getJsonObject(1).getJsonArray("layers").getJsonObject(0);
        assertEquals("lin", sun.getJsonObject("person").getString("id"), "17:00 in Shanghai, its second week");
        assertEquals("2026-12-12T13:00:00Z", sun.getString("until"), "21:00 in Shanghai");
        JsonObject gap = get(web, g, "/api/v1/oncall?schedule=gpu-follow-the-sun&at=2026-12-12T13:30:00Z")
                .bodyAsJsonObject().getJsonArray("schedules").getJsonObject(0).getJsonArray("layers")
                .getJsonObject(0);
        assertTrue(gap.containsKey("person") && gap.getValue("person") == null, "between Shanghai and New York");

        JsonObject later = get(web, g, "/api/v1/oncall?schedule=gpu-platform&at=2026-12-14T09:00:00%2B01:00")
                .bodyAsJsonObject();
        assertEquals(1, later.getJsonArray("schedules").size());
        assertEquals("ana", later.getJsonArray("schedules").getJsonObject(0).getJsonArray("layers")
                .getJsonObject(0).getJsonObject("person").getString("id"), "Monday's hand-off");
        assertEquals(400, get(web, g, "/api/v1/oncall?at=tomorrow").statusCode());
        assertEquals(404, get(web, g, "/api/v1/oncall?schedule=nope").statusCode());

        HttpResponse<Buffer> ics = get(web, g, "/api/v1/schedules/gpu-platform.ics?days=14");
        assertEquals(200, ics.statusCode(), ics.bodyAsString());
        assertEquals("text/calendar; charset=utf-8", ics.getHeader("Content-Type"));
        Calendar calendar = new CalendarBuilder().build(new StringReader(ics.bodyAsString()));
        calendar.validate(true);
        assertTrue(calendar.getComponents(Component.VEVENT).size() >= 4, ics.bodyAsString());
        assertEquals(404, get(web, g, "/api/v1/schedules/nope.ics").statusCode());
        assertEquals(400, get(web, g, "/api/v1/schedules/gpu-platform.ics?days=0").statusCode());
    }
}
