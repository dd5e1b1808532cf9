package io.gpuwatch.gateway.window;

/**
 * Measures the real heap of cards of 20 fifteen-minute series and an empty event log, to check
 * {@link MetricWindow#retainedBytes()} against: run with the test classpath, e.g. {@code java -Xmx2g -cp ...
 * io.gpuwatch.gateway.window.HeapPerCard 10000}.
 */
public final class HeapPerCard {
    private HeapPerCard() {
    }

    public static void main(String[] args) throws InterruptedException {
        int cards = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        WindowShape shape = WindowShape.forWindow(900_000);
        long before = usedAfterGc();
        MetricWindow[][] series = new MetricWindow[cards][];
        EventLog[] events = new EventLog[cards];
        for (int c = 0; c < cards; c++) {
            series[c] = WindowMemoryTest.card(shape);
            events[c] = new EventLog(3_600_000);
        }
        // Twenty minutes of data, so that both tiers are in use.
        for (int t = 0; t < 1200; t++) {
            for (int c = 0; c < cards; c++) {
                for (MetricWindow w : series[c]) {
                    w.append(t * 1000L, t % 97);
                }
            }
        }
        long after = usedAfterGc();
        // The outer arrays of this harness (one reference per card per series) are the gateway's, not the card's.
        long harness = MetricWindow.arrayBytes(cards, 4) * 2 + cards * MetricWindow.arrayBytes(20, 4);
        System.out.printf("cards=%d measured=%d bytes/card (harness arrays excluded: %d bytes/card) computed=%d bytes/card%n",
                cards, (after - before) / cards, (after - before - harness) / cards,
                WindowMemoryTest.cardBytes(series[0], events[0]));
        System.out.println(series[cards - 1][0].avg(60_000) + events[cards - 1].size());
    }

    private static long usedAfterGc() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}
