package io.gpuwatch.probe.attribution;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CgroupsTest {
    private static final String UID = "3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab";
    private static final String UID_ = UID.replace('-', '_');
    private static final String ID = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb";

    @Test
    void containerdWithTheSystemdDriverGivesPodAndContainer() {
        Cgroups.Match m = Cgroups.parse("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + UID_
                + ".slice/cri-containerd-" + ID + ".scope\n");
        assertEquals(new Cgroups.Match(UID, ID, null), m);
    }

    @Test
    void guaranteedPodsHaveNoQosLevelInThePath() {
        Cgroups.Match m = Cgroups.parse("0::/kubepods.slice/kubepods-pod" + UID_ + ".slice/cri-containerd-" + ID
                + ".scope\n");
        assertEquals(new Cgroups.Match(UID, ID, null), m);
    }

    @Test
    void theCgroupfsDriverNamesPodAndBareContainerId() {
        assertEquals(new Cgroups.Match(UID, ID, null), Cgroups.parse("0::/kubepods/burstable/pod" + UID + "/" + ID));
        assertEquals(new Cgroups.Match(UID, ID, null), Cgroups.parse("0::/kubepods/pod" + UID + "/" + ID));
    }

    @Test
    void crioDockerAndPodmanScopesNameTheirContainer() {
        assertEquals(new Cgroups.Match(UID, ID, null), Cgroups.parse(
                "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + UID_ + ".slice/crio-" + ID
                        + ".scope"));
        assertEquals(new Cgroups.Match(null, ID, null), Cgroups.parse("0::/system.slice/docker-" + ID + ".scope"));
        assertEquals(new Cgroups.Match(null, ID, null), Cgroups.parse("4:memory:/docker/" + ID));
        assertEquals(new Cgroups.Match(null, ID, null),
                Cgroups.parse("0::/machine.slice/libpod-" + ID + ".scope/container"));
    }

    @Test
    void aNestedContainerIsTheInnermostOne() {
        String outer = "18ac3e7343f016890c510e93f935261169d9e3f565436429830faf0934f4f8e4";
        assertEquals(new Cgroups.Match(null, ID, null),
                Cgroups.parse("0::/system.slice/docker-" + outer + ".scope/docker/" + ID));
    }

    @Test
    void crioConmonIsNotTheContainer() {
        Cgroups.Match m = Cgroups.parse("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + UID_
                + ".slice/crio-conmon-" + ID + ".scope");
        assertEquals(new Cgroups.Match(UID, null, null), m);
    }

    @Test
    void slurmJobsComeFromV1AndV2Paths() {
        assertEquals("88121", Cgroups.parse("7:devices:/slurm/uid_1000/job_88121/step_0/task_0\n").slurmJobId());
        assertEquals("88122", Cgroups.parse("0::/system.slice/slurmstepd.scope/job_88122/step_batch/user/task_0")
                .slurmJobId());
        assertEquals("7", Cgroups.parse("0::/system.slice/gpu-a17_slurmstepd.scope/job_7/step_extern").slurmJobId());
    }

    @Test
    void aJobDirectoryOutsideSlurmIsNotAJob() {
        assertEquals(new Cgroups.Match(null, null, null), Cgroups.parse("0::/system.slice/job_42/worker"));
    }

    @Test
    void theFirstV1LineNamingThemWinsAndRootLinesAreSkipped() {
        String text = "12:hugetlb:/\n11:memory:/kubepods/besteffort/pod" + UID + "/" + ID + "\n"
                + "1:name=systemd:/kubepods/besteffort/pod" + UID + "/" + ID + "\n0::/\n";
        assertEquals(new Cgroups.Match(UID, ID, null), Cgroups.parse(text));
    }

    @Test
    void linesWithoutTwoColonsAndOrdinaryServicesGiveNothing() {
        assertEquals(new Cgroups.Match(null, null, null),
                Cgroups.parse("garbage\n0::/system.slice/nvidia-persistenced.service\n\n"));
        assertEquals(new Cgroups.Match(null, null, null), Cgroups.parse(""));
    }

    @Test
    void aPodSegmentOutsideKubepodsIsIgnored() {
        assertEquals(new Cgroups.Match(null, null, null), Cgroups.parse("0::/user.slice/pod" + UID + ".slice"));
    }
}
