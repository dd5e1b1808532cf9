package io.gpuwatch.probe.nvml;

/** Fake NVML scripts shared by the tests: distinct, non-round values so a layout or unit slip shows. */
final class Scripts {
    static final String UUID_0 = "GPU-fake-0001-4e2a-9c1d-7b3f05a1c001";
    static final String UUID_1 = "GPU-fake-0002-81d7-33ab-e40c99f2b002";

    /** Two cards: an H100 with every reading, an H200 without NVLink, GPM, memory temperature or page retirement. */
    static final String TWO_CARDS = """
            driver 580.95.05
            nvml 13.580.95.05
            cards 2

            card 0 uuid GPU-fake-0001-4e2a-9c1d-7b3f05a1c001
            card 0 name NVIDIA H100 80GB HBM3
            card 0 pci 00000000:1B:00.0
            card 0 mem.total 85520809984
            card 0 mem.reserved 560988160
            card 0 mem.used 61203283968 61764272128
            card 0 power.limit 700000
            card 0 clock.sm.max 1980
            card 0 clock.mem.max 2619
            card 0 mig 0
            card 0 util.gpu 97 88
            card 0 util.mem 41 37
            card 0 temp 71 73
            card 0 temp.mem 80 82
            card 0 power 612400 633150
            card 0 energy 123456789012 123457421562
            card 0 clock.sm 1755 1740
            card 0 clock.mem 2619
            card 0 pstate 2
            card 0 reasons 0x44 0x4
            card 0 ecc.corrected 7
            card 0 ecc.uncorrected 2
            card 0 ecc.corrected.aggregate 1234
            card 0 ecc.uncorrected.aggregate 99
            card 0 retired.pending 1
            card 0 remap.corr 3
            card 0 remap.unc 1
            card 0 remap.pending 1
            card 0 remap.failed 0
            card 0 pcie.tx 120034
            card 0 pcie.rx 98122
            card 0 pcie.replays 5
            card 0 pcie.gen 5
            card 0 pcie.width 16
            card 0 nvlinks 4
            card 0 nvlink.down 0x4
            card 0 nvlink.replay 3
            card 0 nvlink.recovery 1
            card 0 nvlink.crc.flit 11
            card 0 nvlink.crc.data 7
            card 0 gpm 1
            card 0 gpm.sm 0 62.5
            card 0 gpm.occupancy 0 31.25
            card 0 gpm.tensor 0 44
            card 0 gpm.dram 0 58
            card 0 proc 4242 60129542144
            card 0 proc 5151 -1
            card 0 events 0x1B

            card 1 uuid GPU-fake-0002-81d7-33ab-e40c99f2b002
            card 1 name NVIDIA H200
            card 1 pci 00000000:43:00.0
            card 1 mem.total 150754820096
            card 1 mem.used 1611661312
            card 1 power.limit 612345
            card 1 clock.sm.max 1830
            card 1 mig 1
            card 1 util.gpu 12
            card 1 util.mem 3
            card 1 temp 34
            card 1 power 98765
            card 1 energy 9876543210
            card 1 clock.sm 345
            card 1 clock.mem 1593
            card 1 pstate 8
            card 1 reasons 0x1
            card 1 ecc.corrected 0
            card 1 ecc.uncorrected 0
            card 1 remap.corr 0
            card 1 remap.unc 0
            card 1 remap.pending 0
            card 1 remap.failed 0
            card 1 pcie.tx 431
            card 1 pcie.rx 277
            card 1 pcie.replays 0
            card 1 pcie.gen 4
            card 1 pcie.width 8
            card 1 events 0x1B
            """;

    private Scripts() {
    }
}
