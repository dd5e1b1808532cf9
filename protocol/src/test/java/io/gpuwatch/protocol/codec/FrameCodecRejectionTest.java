package io.gpuwatch.protocol.codec;

import io.gpuwatch.protocol.Ack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static io.gpuwatch.protocol.codec.FrameCodecRoundTripTest.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class FrameCodecRejectionTest {
    private static final String SAMPLE = "{'type':'sample','seq':9,'ts':1764700000000,'cards':[";
    private static final String HELLO = "{'type':'hello','v':1,'node':'gpu-a17','bootId':'b1','cards':[";

    private final FrameCodec codec = new FrameCodec();

    /** Frame text (single-quoted JSON), then the expected code, seq, path and message. */
    static Stream<Arguments> badFrames() {
        return Stream.of(
                // wrong JSON types
                bad(SAMPLE + "{'uuid':'GPU-1','tempC':'hot'}]}", "bad_frame", 9L, "cards[0].tempC",
                        "field 'cards[0].tempC' must be a number, got \"hot\""),
                bad(SAMPLE + "{'uuid':'GPU-1'},{'uuid':'GPU-2','retiredPagesPending':1}]}", "bad_frame", 9L,
                        "cards[1].retiredPagesPending", "field 'cards[1].retiredPagesPending' must be true or false, got 1"),
                bad(SAMPLE + "{'uuid':'GPU-1','clockEventReasons':'SW_POWER_CAP'}]}", "bad_frame", 9L,
                        "cards[0].clockEventReasons", "field 'cards[0].clockEventReasons' must be an array, got \"SW_POWER_CAP\""),
                bad(SAMPLE + "{'uuid':'GPU-1','processes':[{'pid':4.5}]}]}", "bad_frame", 9L,
                        "cards[0].processes[0].pid", "field 'cards[0].processes[0].pid' must be an integer, got 4.5"),
                bad(SAMPLE + "5]}", "bad_frame", 9L, "cards[0]", "field 'cards[0]' must be an object, got 5"),
                bad("{'type':'ack','seq':'5'}", "bad_frame", null, "seq", "field 'seq' must be an integer, got \"5\""),
                bad("{'type':'sample','seq':9,'ts':5,'cards':{}}", "bad_frame", 9L, "cards",
                        "field 'cards' must be an array, got an object"),
                bad("{'type':3}", "bad_frame", null, "type", "field 'type' must be a string, got 3"),
                // missing fields
                bad("{'type':'hello','v':1,'node':'gpu-a17','cards':[]}", "bad_frame", null, "bootId",
                        "missing required field 'bootId'"),
                bad(SAMPLE + "{'uuid':'GPU-1'},{'tempC':70}]}", "bad_frame", 9L, "cards[1].uuid",
                        "missing required field 'cards[1].uuid'"),
                bad(SAMPLE + "{'uuid':'GPU-1','processes':[{'task':'t'}]}]}", "bad_frame", 9L,
                        "cards[0].processes[0].pid", "missing required field 'cards[0].processes[0].pid'"),
                bad("{'type':'sample','ts':5,'cards':[]}", "bad_frame", null, "seq", "missing required field 'seq'"),
                bad("{'type':'event','seq':3,'ts':5,'kind':'xid','uuid':'GPU-1'}", "bad_frame", 3L, "xid",
                        "missing required field 'xid' (required when kind is 'xid')"),
                bad("{'type':'welcome','v':1,'ackedSeq':0,'intervalMs':1000}", "bad_frame", null, "session",
                        "missing required field 'session'"),
                bad("{'type':'welcome','v':1,'session':'s','ackedSeq':0,'intervalMs':1000,'redirect':'http://g2:9464'}",
                        "bad_frame", null, "redirect",
                        "field 'redirect' must be a ws:// or wss:// URL with a host, got 'http://g2:9464'"),
                bad("{'type':'welcome','v':1,'session':'s','ackedSeq':0,'intervalMs':1000,'redirect':'ws://g 2'}",
                        "bad_frame", null, "redirect", "field 'redirect' must be a ws:// or wss:// URL, got 'ws://g 2'"),
                bad("{'seq':1}", "bad_frame", null, "type", "missing required field 'type'"),
                bad("{'type':'hello','v':1,'node':'gpu-a17','bootId':'b1','cards':null}", "bad_frame", null, "cards",
                        "missing required field 'cards'"),
                // NaN and Infinity, as literals and as strings
                bad(SAMPLE + "{'uuid':'GPU-1','tempC':NaN}]}", "bad_frame", 9L, "cards[0].tempC",
                        "field 'cards[0].tempC' must be a finite number, got NaN"),
                bad(SAMPLE + "{'uuid':'GPU-1','powerW':-Infinity}]}", "bad_frame", 9L, "cards[0].powerW",
                        "field 'cards[0].powerW' must be a finite number, got -Infinity"),
                bad(SAMPLE + "{'uuid':'GPU-1','tempC':'NaN'}]}", "bad_frame", 9L, "cards[0].tempC",
                        "field 'cards[0].tempC' must be a number, got \"NaN\""),
                bad(SAMPLE + "{'uuid':'GPU-1','energyJ':1e400}]}", "bad_frame", 9L, "cards[0].energyJ",
                        "field 'cards[0].energyJ' must be a finite number, got 1e400"),
                bad(SAMPLE + "{'uuid':'GPU-1','extra':[1,{'x':NaN}]}]}", "bad_frame", 9L, "cards[0].extra",
                        "field 'cards[0].extra' holds NaN, which is not a JSON number"),
                // ranges
                bad(SAMPLE + "{'uuid':'GPU-1','memUsedBytes':-1}]}", "bad_frame", 9L, "cards[0].memUsedBytes",
                        "field 'cards[0].memUsedBytes' must not be negative, got -1"),
                bad(SAMPLE + "{'uuid':'GPU-1','gpuUtil':100.5}]}", "bad_frame", 9L, "cards[0].gpuUtil",
                        "field 'cards[0].gpuUtil' must be between 0 and 100, got 100.5"),
                bad(SAMPLE + "{'uuid':'GPU-1','smActive':1.2}]}", "bad_frame", 9L, "cards[0].smActive",
                        "field 'cards[0].smActive' must be between 0 and 1, got 1.2"),
                bad("{'type':'app','seq':4,'ts':5,'task':'svc','kvCacheUsage':81}", "bad_frame", 4L, "kvCacheUsage",
                        "field 'kvCacheUsage' must be between 0 and 1, got 81"),
                bad("{'type':'sched','seq':4,'ts':5,'queue':'q','pending':-2}", "bad_frame", 4L, "pending",
                        "field 'pending' must not be negative, got -2"),
                bad("{'type':'sched','seq':4,'ts':5,'queue':'q','tasks':[{'task':'t','outcome':'crashed'}]}",
                        "bad_frame", 4L, "tasks[0].outcome", "field 'tasks[0].outcome' must be one of cancelled, "
                                + "failed, preempted, succeeded, got \"crashed\""),
                bad("{'type':'sched','seq':4,'ts':5,'queue':'q','tasks':[{'task':'t','model':{'params':7e9,"
                        + "'precision':'bf32'}}]}", "bad_frame", 4L, "tasks[0].model.precision",
                        "field 'tasks[0].model.precision' must be one of bf16, fp16, fp32, fp4, fp64, fp8, int8, "
                                + "tf32, got \"bf32\""),
                bad("{'type':'sched','seq':4,'ts':5,'queue':'q','tasks':[{'task':'t','model':{'workload':'training'}}]}",
                        "bad_frame", 4L, "tasks[0].model.params",
                        "field 'tasks[0].model.params' is required: the model's parameter count"),
                bad("{'type':'ack','seq':-1}", "bad_frame", null, "seq", "field 'seq' must not be negative, got -1"),
                bad("{'type':'event','seq':3,'ts':0,'kind':'oom'}", "bad_frame", 3L, "ts",
                        "field 'ts' must be positive, got 0"),
                bad("{'type':'config','intervalMs':0}", "bad_frame", null, "intervalMs",
                        "field 'intervalMs' must be positive, got 0"),
                bad("{'type':'ack','seq':99999999999999999999}", "bad_frame", null, "seq",
                        "field 'seq' is out of range, got 99999999999999999999"),
                // names
                bad(SAMPLE + "{'uuid':'GPU-1','clockEventReasons':['SW_POWER_CAP','HOT']}]}", "bad_frame", 9L,
                        "cards[0].clockEventReasons[1]",
                        "field 'cards[0].clockEventReasons[1]' is not an NVML clock-event reason: \"HOT\""),
                bad("{'type':'hello','v':1,'node':'gpu a17','bootId':'b1','cards':[]}", "bad_frame", null, "node",
                        "field 'node' must be 1 to 253 of the characters A-Z a-z 0-9 . _ -, got \"gpu a17\""),
                bad("{'type':'ack','seq':3,'node':''}", "bad_frame", 3L, "node",
                        "field 'node' must be 1 to 253 of the characters A-Z a-z 0-9 . _ -, got \"\""),
                bad("{'type':'event','seq':3,'ts':5,'kind':'Xid'}", "bad_frame", 3L, "kind",
                        "field 'kind' must be lower snake case like 'process_exit', got \"Xid\""),
                bad(SAMPLE + "{'uuid':'GPU-1'},{'uuid':'GPU-2'},{'uuid':'GPU-1'}]}", "bad_frame", 9L, "cards[2].uuid",
                        "field 'cards[2].uuid' repeats the uuid of cards[0]: \"GPU-1\""),
                bad(SAMPLE + "{'uuid':''}]}", "bad_frame", 9L, "cards[0].uuid", "field 'cards[0].uuid' must not be empty"),
                bad("{'type':'ack','seq':3,'type':'sample'}", "bad_frame", 3L, "type",
                        "field 'type' is given twice, as 'ack' and as \"sample\""),
                // versions
                bad("{'type':'hello','v':'1','node':'gpu-a17','bootId':'b1','cards':[]}", "bad_frame", null, "v",
                        "field 'v' must be an integer, got \"1\""),
                bad("{'type':'hello','node':'gpu-a17','bootId':'b1','cards':[]}", "bad_frame", null, "v",
                        "missing required field 'v'"),
                bad("{'type':'hello','v':2,'node':'gpu-a17','bootId':'b1','cards':[]}", "unsupported_version", null,
                        "v", "unsupported protocol version 2; this side speaks version 1"),
                bad("{'type':'hello','cards':[{'gpu':'a new shape'}],'v':2}", "unsupported_version", null, "v",
                        "unsupported protocol version 2; this side speaks version 1"),
                bad("{'type':'welcome','v':3,'session':'s','ackedSeq':0,'intervalMs':1000}", "unsupported_version",
                        null, "v", "unsupported protocol version 3; this side speaks version 1"),
                // types
                bad("{'type':'helo','v':1}", "unknown_type", null, "type", "unknown frame type 'helo'"),
                bad("{'seq':1,'type':'Sample'}", "unknown_type", null, "type", "unknown frame type 'Sample'"),
                // not one JSON object
                bad("{'type':'ack','seq':3", "bad_json", 3L, "",
                        "invalid JSON at 1:22: Unexpected end-of-input: expected close marker for Object "
                                + "(start marker at [line: 1, column: 1])"),
                bad("{'type':'ack' 'seq':3}", "bad_json", null, "",
                        "invalid JSON at 1:15: Unexpected character ('\"' (code 34)): was expecting comma to "
                                + "separate Object entries"),
                bad("[{'type':'ack','seq':3}]", "bad_json", null, "", "frame must be a JSON object, got an array"),
                bad("", "bad_json", null, "", "frame is empty; expected one JSON object"),
                bad("{'type':'ack','seq':3} {'type':'ack','seq':4}", "bad_json", 3L, "",
                        "unexpected content after the frame object at 1:24; a frame is exactly one JSON object"));
    }

    private static Arguments bad(String singleQuoted, String code, Long seq, String path, String message) {
        return arguments(json(singleQuoted), new Decoded.Bad(code, seq, path, message));
    }

    @ParameterizedTest
    @MethodSource("badFrames")
    void refusesWithCodePathAndMessage(String text, Decoded.Bad expected) {
        assertEquals(expected, codec.decode(text), text);
    }

    @Test
    void anOversizedFrameIsRefusedBeforeParsing() {
        String text = "{\"type\":\"ack\",\"seq\":1,\"pad\":\"" + "x".repeat(2 * 1024 * 1024 - 31) + "\"}";

        assertEquals(2 * 1024 * 1024, text.length());
        assertEquals(new Decoded.Bad("too_large", null, "", "frame is 2097152 bytes, over the 1048576-byte limit"),
                codec.decode(text));
    }

    @Test
    void theFrameSizeLimitCountsUtf8Bytes() {
        FrameCodec small = new FrameCodec(new FrameLimits(41, 64, 256, 4096));
        String fits = json("{'type':'ack','seq':1,'x':'" + "é".repeat(6) + "'}");
        String over = json("{'type':'ack','seq':1,'x':'" + "é".repeat(7) + "'}");

        assertEquals(36, over.length(), "fewer chars than the limit, more bytes");
        assertEquals(new Decoded.Ok(new Ack(1), null), small.decode(fits));
        assertEquals(new Decoded.Bad("too_large", null, "", "frame is 43 bytes, over the 41-byte limit"),
                small.decode(over));
    }

    @Test
    void countLimitsAreEnforced() {
        FrameCodec small = new FrameCodec(new FrameLimits(1 << 20, 2, 1, 8));

        assertEquals(new Decoded.Bad("bad_frame", 9L, "cards", "field 'cards' has more than the 2 cards allowed"),
                small.decode(json(SAMPLE + "{'uuid':'a'},{'uuid':'b'},{'uuid':'c'}]}")));
        assertEquals(new Decoded.Bad("bad_frame", null, "cards", "field 'cards' has more than the 2 cards allowed"),
                small.decode(json(HELLO + "{'uuid':'a','index':0},{'uuid':'b','index':1},"
                        + "{'uuid':'c','index':2}]}")));
        assertEquals(new Decoded.Bad("bad_frame", 9L, "cards[0].processes",
                        "field 'cards[0].processes' has more than the 1 processes allowed"),
                small.decode(json(SAMPLE + "{'uuid':'a','processes':[{'pid':1},{'pid':2}]}]}")));
        assertEquals(new Decoded.Bad("bad_frame", 9L, "cards[0].uuid",
                        "field 'cards[0].uuid' is longer than the 8 characters allowed"),
                small.decode(json(SAMPLE + "{'uuid':'GPU-3f1c0a'}]}")));
    }

    @Test
    void decodeNeverThrowsOnNull() {
        assertEquals(new Decoded.Bad("bad_json", null, "", "no frame text"), codec.decode(null));
    }

    @Test
    void limitsMustBePositive() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new FrameLimits(1024, 0, 256, 4096));
        assertEquals("maxCards must be positive, got 0", e.getMessage());
    }
}
