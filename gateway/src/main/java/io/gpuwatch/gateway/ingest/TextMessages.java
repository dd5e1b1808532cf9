package io.gpuwatch.gateway.ingest;

import io.gpuwatch.protocol.codec.Decoded;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocketFrame;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Turns one connection's WebSocket frames into whole text messages: fragments are joined, and the bytes must be
 * valid UTF-8 (RFC 6455 §8.1), checked strictly rather than replaced, so a broken producer hears about it.
 */
final class TextMessages {
    /** What a finished message was. */
    sealed interface Message {
    }

    /** A whole text message. */
    record Text(String text) implements Message {
    }

    /** A message refused: {@code code} and {@code message} go into the error frame. */
    record Refused(String code, String message) implements Message {
    }

    private final int maxBytes;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    private Buffer pending;
    private boolean pendingText;
    private boolean discarding;

    /** @param maxBytes the largest message taken, its fragments together */
    TextMessages(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** The message this frame finishes, or null while fragments are still coming (or for control frames). */
    Message accept(WebSocketFrame frame) {
        if (frame.isText() || frame.isBinary()) {
            if (pending != null || discarding) {
                reset();
                return new Refused("bad_frame", "a new message began before the previous one's last fragment");
            }
            if (frame.isFinal()) {
                return finish(frame.isText(), frame.binaryData());
            }
            pending = Buffer.buffer().appendBuffer(frame.binaryData());
            pendingText = frame.isText();
            return checkSize();
        }
        if (!frame.isContinuation()) {
            return null;
        }
        if (discarding) {
            discarding = !frame.isFinal();
            return null;
        }
        if (pending == null) {
            return new Refused("bad_frame", "a continuation fragment without a message to continue");
        }
        pending.appendBuffer(frame.binaryData());
        Message tooLarge = checkSize();
        if (tooLarge != null || !frame.isFinal()) {
            return tooLarge;
        }
        Buffer whole = pending;
        boolean text = pendingText;
        reset();
        return finish(text, whole);
    }

    private Message checkSize() {
        if (pending.length() <= maxBytes) {
            return null;
        }
        int size = pending.length();
        reset();
        discarding = true;
        return new Refused(Decoded.Bad.TOO_LARGE, "message of over " + size + " bytes in fragments; the limit is " + maxBytes);
    }

    private void reset() {
        pending = null;
        discarding = false;
    }

    private Message finish(boolean text, Buffer bytes) {
        if (!text) {
            return new Refused("bad_frame", "binary frames are not part of protocol v1; send JSON text frames");
        }
        byte[] b = bytes.getBytes();
        if (ascii(b)) {
            // what probes send: JSON with ASCII names and values, which needs no decoding
            return new Text(new String(b, StandardCharsets.ISO_8859_1));
        }
        ByteBuffer in = ByteBuffer.wrap(b);
        CharBuffer out = CharBuffer.allocate(b.length);
        utf8.reset();
        CoderResult r = utf8.decode(in, out, true);
        if (!r.isError()) {
            r = utf8.flush(out);
        }
        if (r.isError()) {
            return new Refused("bad_utf8", "text frame is not valid UTF-8 at byte " + in.position());
        }
        return new Text(out.flip().toString());
    }

    private static boolean ascii(byte[] b) {
        for (byte x : b) {
            if (x < 0) {
                return false;
            }
        }
        return true;
    }
}
