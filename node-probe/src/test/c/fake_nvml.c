/*
 * A scripted stand-in for libnvidia-ml.so.1, for testing the JNA binding without a GPU.
 *
 * It exports the NVML functions the probe calls, with their real C signatures and struct layouts
 * (declared here as in NVIDIA's nvml.h, API version 13), plus a few fake_nvml_* functions a test calls
 * to load a script, advance time by one step and read call counters. The script format is described
 * in docs/nvml.md. A value the script does not give makes its function answer NVML_ERROR_NOT_SUPPORTED.
 */
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- NVML types, as in nvml.h ---- */

typedef int nvmlReturn_t;
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    NVML_ERROR_UNKNOWN = 999
};

#define NVML_VALUE_NOT_AVAILABLE_ULL 0xFFFFFFFFFFFFFFFFULL
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_GPM_METRIC_MAX 333
#define NVML_FI_DEV_MEMORY_TEMP 82

typedef struct fake_card *nvmlDevice_t;
typedef struct fake_event_set *nvmlEventSet_t;
typedef struct fake_gpm_sample *nvmlGpmSample_t;

typedef struct {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

typedef struct {
    unsigned int gpu;
    unsigned int memory;
} nvmlUtilization_t;

typedef struct {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

typedef struct {
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_v2_t;
#define NVML_MEMORY_V2_VERSION ((unsigned int) (sizeof(nvmlMemory_v2_t) | (2u << 24)))

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_t;

typedef union {
    double dVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    signed int siVal;
    unsigned short usVal;
} nvmlValue_t;

typedef struct {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    int valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;

typedef struct {
    nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlEventData_t;

typedef struct {
    unsigned int version;
    unsigned int isSupportedDevice;
} nvmlGpmSupport_t;

typedef struct {
    unsigned int metricId;
    nvmlReturn_t nvmlReturn;
    double value;
    struct {
        char *shortName;
        char *longName;
        char *unit;
    } metricInfo;
} nvmlGpmMetric_t;

typedef struct {
    unsigned int version;
    unsigned int numMetrics;
    nvmlGpmSample_t sample1;
    nvmlGpmSample_t sample2;
    nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;

/* the sizes and offsets nvml.h gives on x86_64: a mistake here would hide the same mistake in the binding */
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t");
_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t");
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t");
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t");
_Static_assert(NVML_MEMORY_V2_VERSION == 0x02000028, "nvmlMemory_v2 version");
_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvmlProcessInfo_t");
_Static_assert(sizeof(nvmlFieldValue_t) == 40 && offsetof(nvmlFieldValue_t, value) == 32, "nvmlFieldValue_t");
_Static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t");
_Static_assert(sizeof(nvmlGpmMetric_t) == 40, "nvmlGpmMetric_t");
_Static_assert(offsetof(nvmlGpmMetricsGet_t, metrics) == 24, "nvmlGpmMetricsGet_t");

/* ---- the script's state ---- */

#define MAX_CARDS 16
#define MAX_STEPS 64
#define MAX_PROCS 256
#define MAX_FAILS 64
#define MAX_EVENTS 256
#define MAX_GPM_SAMPLES 64

#define KEYS(X) \
    X(K_MEM_TOTAL, "mem.total") X(K_MEM_RESERVED, "mem.reserved") X(K_MEM_USED, "mem.used") \
    X(K_UTIL_GPU, "util.gpu") X(K_UTIL_MEM, "util.mem") X(K_TEMP, "temp") X(K_TEMP_MEM, "temp.mem") \
    X(K_POWER, "power") X(K_POWER_LIMIT, "power.limit") X(K_ENERGY, "energy") \
    X(K_CLOCK_SM, "clock.sm") X(K_CLOCK_MEM, "clock.mem") X(K_CLOCK_SM_MAX, "clock.sm.max") \
    X(K_CLOCK_MEM_MAX, "clock.mem.max") X(K_PSTATE, "pstate") X(K_REASONS, "reasons") \
    X(K_ECC_CORR, "ecc.corrected") X(K_ECC_UNC, "ecc.uncorrected") \
    X(K_ECC_CORR_AGG, "ecc.corrected.aggregate") X(K_ECC_UNC_AGG, "ecc.uncorrected.aggregate") \
    X(K_RETIRED_PENDING, "retired.pending") X(K_REMAP_CORR, "remap.corr") X(K_REMAP_UNC, "remap.unc") \
    X(K_REMAP_PENDING, "remap.pending") X(K_REMAP_FAILED, "remap.failed") \
    X(K_PCIE_TX, "pcie.tx") X(K_PCIE_RX, "pcie.rx") X(K_PCIE_REPLAYS, "pcie.replays") \
    X(K_PCIE_GEN, "pcie.gen") X(K_PCIE_WIDTH, "pcie.width") X(K_MIG, "mig") \
    X(K_NVLINKS, "nvlinks") X(K_NVLINK_DOWN, "nvlink.down") X(K_NVLINK_REPLAY, "nvlink.replay") \
    X(K_NVLINK_RECOVERY, "nvlink.recovery") X(K_NVLINK_CRC_FLIT, "nvlink.crc.flit") \
    X(K_NVLINK_CRC_DATA, "nvlink.crc.data") X(K_PROCS, "procs") X(K_PROCS_GROW, "procs.grow") \
    X(K_GPM, "gpm") X(K_GPM_SM, "gpm.sm") X(K_GPM_OCCUPANCY, "gpm.occupancy") \
    X(K_GPM_TENSOR, "gpm.tensor") X(K_GPM_DRAM, "gpm.dram") X(K_EVENTS, "events")

#define KEY_ENUM(k, s) k,
#define KEY_NAME(k, s) s,
enum key { KEYS(KEY_ENUM) K_COUNT };
static const char *const KEY_NAMES[] = { KEYS(KEY_NAME) };

/* one scripted value per step; the last one holds for every later step */
typedef struct {
    int n;
    double v[MAX_STEPS];
} series;

/* the processes of one context type on a card, in script order */
typedef struct {
    int n;
    struct {
        unsigned int pid;
        unsigned long long bytes;
    } e[MAX_PROCS];
} proc_list;

struct fake_card {
    char uuid[96];
    char name[96];
    char pci[32];
    series values[K_COUNT];
    proc_list procs;  /* compute */
    proc_list gprocs; /* graphics */
    int grow_step;
    int grown;
    unsigned long long registered;
};

struct fake_event_set {
    int open;
};

struct fake_gpm_sample {
    int allocated;
    nvmlDevice_t card;
    long taken;
    int step;
};

typedef struct {
    int function; /* -1: every function */
    int card;     /* -1: every card, and the calls that concern no card */
    nvmlReturn_t code;
    int from;
    int until; /* exclusive; -1: for ever */
} failure;

typedef struct {
    int step;
    int card;
    unsigned long long type;
    unsigned long long data;
    int done;
} queued_event;

#define FUNCTIONS(X) \
    X(nvmlInit_v2) X(nvmlShutdown) X(nvmlSystemGetDriverVersion) X(nvmlSystemGetNVMLVersion) \
    X(nvmlDeviceGetCount_v2) X(nvmlDeviceGetHandleByIndex_v2) X(nvmlDeviceGetUUID) X(nvmlDeviceGetName) \
    X(nvmlDeviceGetPciInfo_v3) X(nvmlDeviceGetMigMode) X(nvmlDeviceGetUtilizationRates) \
    X(nvmlDeviceGetMemoryInfo) X(nvmlDeviceGetMemoryInfo_v2) X(nvmlDeviceGetTemperature) \
    X(nvmlDeviceGetFieldValues) X(nvmlDeviceGetPowerUsage) X(nvmlDeviceGetEnforcedPowerLimit) \
    X(nvmlDeviceGetTotalEnergyConsumption) X(nvmlDeviceGetClockInfo) X(nvmlDeviceGetMaxClockInfo) \
    X(nvmlDeviceGetPerformanceState) X(nvmlDeviceGetCurrentClocksEventReasons) \
    X(nvmlDeviceGetCurrentClocksThrottleReasons) X(nvmlDeviceGetTotalEccErrors) \
    X(nvmlDeviceGetRetiredPagesPendingStatus) X(nvmlDeviceGetRemappedRows) X(nvmlDeviceGetPcieThroughput) \
    X(nvmlDeviceGetPcieReplayCounter) X(nvmlDeviceGetCurrPcieLinkGeneration) \
    X(nvmlDeviceGetCurrPcieLinkWidth) X(nvmlDeviceGetNvLinkState) X(nvmlDeviceGetNvLinkErrorCounter) \
    X(nvmlDeviceGetComputeRunningProcesses_v3) X(nvmlDeviceGetGraphicsRunningProcesses_v3) \
    X(nvmlGpmQueryDeviceSupport) X(nvmlGpmSampleAlloc) \
    X(nvmlGpmSampleFree) X(nvmlGpmSampleGet) X(nvmlGpmMetricsGet) X(nvmlEventSetCreate) \
    X(nvmlDeviceGetSupportedEventTypes) X(nvmlDeviceRegisterEvents) X(nvmlEventSetWait_v2) \
    X(nvmlEventSetFree)

#define FN_ENUM(f) F_##f,
#define FN_NAME(f) #f,
enum { FUNCTIONS(FN_ENUM) F_COUNT };
static const char *const FN_NAMES[] = { FUNCTIONS(FN_NAME) };

static const struct {
    nvmlReturn_t code;
    const char *name;
    const char *text;
} RETURNS[] = {
    {0, "SUCCESS", "Success"}, {1, "UNINITIALIZED", "Uninitialized"},
    {2, "INVALID_ARGUMENT", "Invalid Argument"}, {3, "NOT_SUPPORTED", "Not Supported"},
    {4, "NO_PERMISSION", "Insufficient Permissions"}, {5, "ALREADY_INITIALIZED", "Already Initialized"},
    {6, "NOT_FOUND", "Not Found"}, {7, "INSUFFICIENT_SIZE", "Insufficient Size"},
    {8, "INSUFFICIENT_POWER", "Insufficient External Power"}, {9, "DRIVER_NOT_LOADED", "Driver Not Loaded"},
    {10, "TIMEOUT", "Timeout"}, {11, "IRQ_ISSUE", "Interrupt request issue"},
    {12, "LIBRARY_NOT_FOUND", "NVML Shared Library Not Found"}, {13, "FUNCTION_NOT_FOUND", "Function Not Found"},
    {14, "CORRUPTED_INFOROM", "Corrupted infoROM"}, {15, "GPU_IS_LOST", "GPU is lost"},
    {16, "RESET_REQUIRED", "GPU requires restart"},
    {17, "OPERATING_SYSTEM", "The operating system has blocked the request."},
    {18, "LIB_RM_VERSION_MISMATCH", "RM has detected an NVML/RM version mismatch."},
    {19, "IN_USE", "In use by another client"}, {20, "MEMORY", "Insufficient Memory"},
    {21, "NO_DATA", "No data"}, {25, "ARGUMENT_VERSION_MISMATCH", "Argument version mismatch"},
    {999, "UNKNOWN", "Unknown Error"},
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stepped = PTHREAD_COND_INITIALIZER;

static char driver_version[80];
static char nvml_version[80];
static struct fake_card cards[MAX_CARDS];
static int ncards;
static failure fails[MAX_FAILS];
static int nfails;
static queued_event events[MAX_EVENTS];
static int nevents;
static struct fake_event_set the_set;
static struct fake_gpm_sample gpm_samples[MAX_GPM_SAMPLES];
static long gpm_taken;
static int step;
static int initialized;
static long long calls[F_COUNT][MAX_CARDS + 1];
static char script_error[512];

/* ---- checks every call goes through ---- */

static int card_index(nvmlDevice_t d) {
    return d >= cards && d < cards + ncards ? (int) (d - cards) : -1;
}

/* Counts the call and applies the init state, the handle and the script's failures; the caller holds mu. */
static nvmlReturn_t admit(int function, int card, int needs_card) {
    calls[function][card >= 0 ? card : MAX_CARDS]++;
    if (function != F_nvmlInit_v2 && !initialized) {
        return NVML_ERROR_UNINITIALIZED;
    }
    if (needs_card && card < 0) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < nfails; i++) {
        failure *f = &fails[i];
        if ((f->function < 0 || f->function == function) && (f->card < 0 || f->card == card)
                && step >= f->from && (f->until < 0 || step < f->until)) {
            return f->code;
        }
    }
    return NVML_SUCCESS;
}

static nvmlReturn_t enter(int function, nvmlDevice_t d) {
    pthread_mutex_lock(&mu);
    return admit(function, card_index(d), 1);
}

static nvmlReturn_t enter_system(int function) {
    pthread_mutex_lock(&mu);
    return admit(function, -1, 0);
}

static nvmlReturn_t leave(nvmlReturn_t rc) {
    pthread_mutex_unlock(&mu);
    return rc;
}

/* ---- scripted values ---- */

static int has(nvmlDevice_t d, enum key k) {
    return d->values[k].n > 0;
}

static double value(nvmlDevice_t d, enum key k) {
    const series *s = &d->values[k];
    return s->v[step < s->n ? step : s->n - 1];
}

static unsigned long long ull(double v) {
    return v < 0 ? NVML_VALUE_NOT_AVAILABLE_ULL : (unsigned long long) v;
}

static nvmlReturn_t get_uint(nvmlDevice_t d, enum key k, unsigned int *out) {
    if (!out) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!has(d, k)) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *out = (unsigned int) value(d, k);
    return NVML_SUCCESS;
}

static nvmlReturn_t get_ull(nvmlDevice_t d, enum key k, unsigned long long *out) {
    if (!out) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!has(d, k)) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *out = ull(value(d, k));
    return NVML_SUCCESS;
}

static nvmlReturn_t get_string(const char *s, char *out, unsigned int length) {
    if (!out) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!s[0]) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    if (strlen(s) + 1 > length) {
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    strcpy(out, s);
    return NVML_SUCCESS;
}

/* ---- NVML: lifecycle and system ---- */

nvmlReturn_t nvmlInit_v2(void) {
    nvmlReturn_t rc = enter_system(F_nvmlInit_v2);
    if (rc == NVML_SUCCESS) {
        initialized++;
    }
    return leave(rc);
}

nvmlReturn_t nvmlShutdown(void) {
    nvmlReturn_t rc = enter_system(F_nvmlShutdown);
    if (rc == NVML_SUCCESS) {
        initialized--;
    }
    return leave(rc);
}

const char *nvmlErrorString(nvmlReturn_t result) {
    for (size_t i = 0; i < sizeof RETURNS / sizeof RETURNS[0]; i++) {
        if (RETURNS[i].code == result) {
            return RETURNS[i].text;
        }
    }
    return "Unknown Error";
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    nvmlReturn_t rc = enter_system(F_nvmlSystemGetDriverVersion);
    if (rc == NVML_SUCCESS) {
        rc = get_string(driver_version, version, length);
    }
    return leave(rc);
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
    nvmlReturn_t rc = enter_system(F_nvmlSystemGetNVMLVersion);
    if (rc == NVML_SUCCESS) {
        rc = get_string(nvml_version, version, length);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    nvmlReturn_t rc = enter_system(F_nvmlDeviceGetCount_v2);
    if (rc == NVML_SUCCESS) {
        if (count) {
            *count = (unsigned int) ncards;
        } else {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        }
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    pthread_mutex_lock(&mu);
    int card = index < (unsigned int) ncards ? (int) index : -1;
    nvmlReturn_t rc = admit(F_nvmlDeviceGetHandleByIndex_v2, card, 1);
    if (rc == NVML_SUCCESS) {
        if (device) {
            *device = &cards[card];
        } else {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        }
    }
    return leave(rc);
}

/* ---- NVML: static facts ---- */

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetUUID, device);
    if (rc == NVML_SUCCESS) {
        rc = get_string(device->uuid, uuid, length);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetName, device);
    if (rc == NVML_SUCCESS) {
        rc = get_string(device->name, name, length);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetPciInfo_v3, device);
    if (rc == NVML_SUCCESS) {
        unsigned int domain, bus, dev, fn;
        if (!pci) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (sscanf(device->pci, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) {
            rc = NVML_ERROR_NOT_SUPPORTED;
        } else {
            memset(pci, 0, sizeof *pci);
            snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.%X", domain & 0xFFFF, bus, dev, fn);
            pci->domain = domain;
            pci->bus = bus;
            pci->device = dev;
            pci->pciDeviceId = 0x233010DE;
            pci->pciSubSystemId = 0x16C110DE;
            snprintf(pci->busId, sizeof pci->busId, "%s", device->pci);
        }
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetMigMode, device);
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_MIG, currentMode);
    }
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_MIG, pendingMode);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetEnforcedPowerLimit, device);
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_POWER_LIMIT, limit);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, int type, unsigned int *clock) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetMaxClockInfo, device);
    if (rc == NVML_SUCCESS) {
        rc = type == 1 ? get_uint(device, K_CLOCK_SM_MAX, clock)
                : type == 2 ? get_uint(device, K_CLOCK_MEM_MAX, clock) : NVML_ERROR_NOT_SUPPORTED;
    }
    return leave(rc);
}

/* ---- NVML: readings ---- */

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetUtilizationRates, device);
    if (rc == NVML_SUCCESS && !utilization) {
        rc = NVML_ERROR_INVALID_ARGUMENT;
    }
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_UTIL_GPU, &utilization->gpu);
    }
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_UTIL_MEM, &utilization->memory);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetMemoryInfo, device);
    if (rc == NVML_SUCCESS) {
        if (!memory) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (!has(device, K_MEM_TOTAL) || !has(device, K_MEM_USED)) {
            rc = NVML_ERROR_NOT_SUPPORTED;
        } else {
            /* v1 leaves the driver's reservation out of used */
            unsigned long long reserved = has(device, K_MEM_RESERVED) ? ull(value(device, K_MEM_RESERVED)) : 0;
            memory->total = ull(value(device, K_MEM_TOTAL));
            memory->free = memory->total - ull(value(device, K_MEM_USED));
            memory->used = ull(value(device, K_MEM_USED)) - reserved;
        }
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetMemoryInfo_v2, device);
    if (rc == NVML_SUCCESS) {
        if (!memory) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (memory->version != NVML_MEMORY_V2_VERSION) {
            rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        } else if (!has(device, K_MEM_TOTAL) || !has(device, K_MEM_USED)) {
            rc = NVML_ERROR_NOT_SUPPORTED;
        } else {
            memory->total = ull(value(device, K_MEM_TOTAL));
            memory->reserved = has(device, K_MEM_RESERVED) ? ull(value(device, K_MEM_RESERVED)) : 0;
            memory->used = ull(value(device, K_MEM_USED));
            memory->free = memory->total - memory->used;
        }
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensorType, unsigned int *temp) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetTemperature, device);
    if (rc == NVML_SUCCESS) {
        rc = sensorType == 0 ? get_uint(device, K_TEMP, temp) : NVML_ERROR_INVALID_ARGUMENT;
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetFieldValues, device);
    if (rc == NVML_SUCCESS && (!values || valuesCount < 0)) {
        rc = NVML_ERROR_INVALID_ARGUMENT;
    }
    for (int i = 0; rc == NVML_SUCCESS && i < valuesCount; i++) {
        nvmlFieldValue_t *v = &values[i];
        v->timestamp = 1764700000000000LL + step * 1000000LL;
        v->latencyUsec = 0;
        if (v->fieldId == NVML_FI_DEV_MEMORY_TEMP && has(device, K_TEMP_MEM)) {
            v->valueType = 1;
            v->value.uiVal = (unsigned int) value(device, K_TEMP_MEM);
            v->nvmlReturn = NVML_SUCCESS;
        } else {
            v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        }
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetPowerUsage, device);
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_POWER, power);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetTotalEnergyConsumption, device);
    if (rc == NVML_SUCCESS) {
        rc = get_ull(device, K_ENERGY, energy);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *clock) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetClockInfo, device);
    if (rc == NVML_SUCCESS) {
        rc = type == 1 ? get_uint(device, K_CLOCK_SM, clock)
                : type == 2 ? get_uint(device, K_CLOCK_MEM, clock) : NVML_ERROR_NOT_SUPPORTED;
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, int *pState) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetPerformanceState, device);
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_PSTATE, (unsigned int *) pState);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetCurrentClocksEventReasons, device);
    if (rc == NVML_SUCCESS) {
        rc = get_ull(device, K_REASONS, reasons);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetCurrentClocksThrottleReasons, device);
    if (rc == NVML_SUCCESS) {
        rc = get_ull(device, K_REASONS, reasons);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int errorType, int counterType,
                                         unsigned long long *eccCounts) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetTotalEccErrors, device);
    if (rc == NVML_SUCCESS) {
        if (errorType < 0 || errorType > 1 || counterType < 0 || counterType > 1) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            static const enum key keys[2][2] = {{K_ECC_CORR, K_ECC_CORR_AGG}, {K_ECC_UNC, K_ECC_UNC_AGG}};
            rc = get_ull(device, keys[errorType][counterType], eccCounts);
        }
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, int *isPending) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetRetiredPagesPendingStatus, device);
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_RETIRED_PENDING, (unsigned int *) isPending);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
                                       unsigned int *isPending, unsigned int *failureOccurred) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetRemappedRows, device);
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_REMAP_CORR, corrRows);
    }
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_REMAP_UNC, uncRows);
    }
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_REMAP_PENDING, isPending);
    }
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_REMAP_FAILED, failureOccurred);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, int counter, unsigned int *value) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetPcieThroughput, device);
    if (rc == NVML_SUCCESS) {
        rc = counter == 0 ? get_uint(device, K_PCIE_TX, value)
                : counter == 1 ? get_uint(device, K_PCIE_RX, value) : NVML_ERROR_INVALID_ARGUMENT;
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetPcieReplayCounter, device);
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_PCIE_REPLAYS, value);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetCurrPcieLinkGeneration, device);
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_PCIE_GEN, currLinkGen);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetCurrPcieLinkWidth, device);
    if (rc == NVML_SUCCESS) {
        rc = get_uint(device, K_PCIE_WIDTH, currLinkWidth);
    }
    return leave(rc);
}

static nvmlReturn_t check_link(nvmlDevice_t device, unsigned int link) {
    if (!has(device, K_NVLINKS) || value(device, K_NVLINKS) <= 0) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    return link < (unsigned int) value(device, K_NVLINKS) && link < NVML_NVLINK_MAX_LINKS
            ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, unsigned int *isActive) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetNvLinkState, device);
    if (rc == NVML_SUCCESS) {
        rc = isActive ? check_link(device, link) : NVML_ERROR_INVALID_ARGUMENT;
    }
    if (rc == NVML_SUCCESS) {
        unsigned long long down = has(device, K_NVLINK_DOWN) ? ull(value(device, K_NVLINK_DOWN)) : 0;
        *isActive = (down >> link & 1) ? 0 : 1;
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link, int counter,
                                             unsigned long long *counterValue) {
    static const enum key keys[] = {K_NVLINK_REPLAY, K_NVLINK_RECOVERY, K_NVLINK_CRC_FLIT, K_NVLINK_CRC_DATA};
    nvmlReturn_t rc = enter(F_nvmlDeviceGetNvLinkErrorCounter, device);
    if (rc == NVML_SUCCESS) {
        rc = check_link(device, link);
    }
    if (rc == NVML_SUCCESS) {
        rc = counter >= 0 && counter < 4 ? get_ull(device, keys[counter], counterValue) : NVML_ERROR_INVALID_ARGUMENT;
    }
    if (rc == NVML_SUCCESS) {
        /* link L counts L more than the scripted value, so a loop that reads one link twice shows */
        *counterValue += link;
    }
    return leave(rc);
}

/* Count-then-fill of the first `visible` processes of `list`, as both *RunningProcesses_v3 functions do. */
static nvmlReturn_t fill_processes(const proc_list *list, int visible, unsigned int *infoCount,
                                   nvmlProcessInfo_t *infos) {
    nvmlReturn_t rc = NVML_SUCCESS;
    if (!infoCount) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if ((unsigned int) visible > *infoCount || (visible > 0 && !infos)) {
        rc = NVML_ERROR_INSUFFICIENT_SIZE;
    } else {
        for (int i = 0; i < visible; i++) {
            infos[i].pid = list->e[i].pid;
            infos[i].usedGpuMemory = list->e[i].bytes;
            infos[i].gpuInstanceId = 0xFFFFFFFF;
            infos[i].computeInstanceId = 0xFFFFFFFF;
        }
    }
    *infoCount = (unsigned int) visible;
    return rc;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_t *infos) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetComputeRunningProcesses_v3, device);
    if (rc == NVML_SUCCESS) {
        if (device->grow_step != step) {
            device->grow_step = step;
            device->grown = 0;
        }
        int visible = (has(device, K_PROCS) ? (int) value(device, K_PROCS) : device->procs.n) + device->grown;
        if (visible > device->procs.n) {
            visible = device->procs.n;
        }
        /* processes that start between the count query and the fill */
        device->grown += has(device, K_PROCS_GROW) ? (int) value(device, K_PROCS_GROW) : 0;
        rc = fill_processes(&device->procs, visible, infoCount, infos);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                      nvmlProcessInfo_t *infos) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetGraphicsRunningProcesses_v3, device);
    return leave(rc == NVML_SUCCESS ? fill_processes(&device->gprocs, device->gprocs.n, infoCount, infos) : rc);
}

/* ---- NVML: GPM ---- */

static int gpm_valid(nvmlGpmSample_t s) {
    return s >= gpm_samples && s < gpm_samples + MAX_GPM_SAMPLES && s->allocated;
}

nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *gpmSupport) {
    nvmlReturn_t rc = enter(F_nvmlGpmQueryDeviceSupport, device);
    if (rc == NVML_SUCCESS) {
        if (!gpmSupport) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (gpmSupport->version != 1) {
            rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        } else {
            gpmSupport->isSupportedDevice = has(device, K_GPM) && value(device, K_GPM) != 0;
        }
    }
    return leave(rc);
}

nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *gpmSample) {
    nvmlReturn_t rc = enter_system(F_nvmlGpmSampleAlloc);
    if (rc == NVML_SUCCESS) {
        rc = NVML_ERROR_INSUFFICIENT_SIZE;
        for (int i = 0; i < MAX_GPM_SAMPLES && gpmSample; i++) {
            if (!gpm_samples[i].allocated) {
                memset(&gpm_samples[i], 0, sizeof gpm_samples[i]);
                gpm_samples[i].allocated = 1;
                *gpmSample = &gpm_samples[i];
                rc = NVML_SUCCESS;
                break;
            }
        }
    }
    return leave(rc);
}

nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t gpmSample) {
    nvmlReturn_t rc = enter_system(F_nvmlGpmSampleFree);
    if (rc == NVML_SUCCESS) {
        if (gpm_valid(gpmSample)) {
            gpmSample->allocated = 0;
        } else {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        }
    }
    return leave(rc);
}

nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t gpmSample) {
    nvmlReturn_t rc = enter(F_nvmlGpmSampleGet, device);
    if (rc == NVML_SUCCESS) {
        if (!gpm_valid(gpmSample)) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (!has(device, K_GPM) || value(device, K_GPM) == 0) {
            rc = NVML_ERROR_NOT_SUPPORTED;
        } else {
            gpmSample->card = device;
            gpmSample->taken = ++gpm_taken;
            gpmSample->step = step;
        }
    }
    return leave(rc);
}

nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *m) {
    pthread_mutex_lock(&mu);
    int valid = m && gpm_valid(m->sample1) && gpm_valid(m->sample2) && m->sample1->card
            && m->sample1->card == m->sample2->card && m->sample1->taken < m->sample2->taken;
    nvmlReturn_t rc = admit(F_nvmlGpmMetricsGet, valid ? card_index(m->sample2->card) : -1, 0);
    if (rc == NVML_SUCCESS) {
        if (!valid || m->numMetrics > NVML_GPM_METRIC_MAX) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (m->version != 1) {
            rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        }
    }
    if (rc == NVML_SUCCESS) {
        nvmlDevice_t d = m->sample2->card;
        int saved = step;
        /* the metrics are those of the step the second sample was taken in */
        step = m->sample2->step;
        for (unsigned int i = 0; i < m->numMetrics; i++) {
            nvmlGpmMetric_t *metric = &m->metrics[i];
            enum key k = metric->metricId == 2 ? K_GPM_SM : metric->metricId == 3 ? K_GPM_OCCUPANCY
                    : metric->metricId == 5 ? K_GPM_TENSOR : metric->metricId == 10 ? K_GPM_DRAM : K_COUNT;
            memset(&metric->metricInfo, 0, sizeof metric->metricInfo);
            if (k != K_COUNT && has(d, k)) {
                metric->value = value(d, k);
                metric->nvmlReturn = NVML_SUCCESS;
            } else {
                metric->value = 0;
                metric->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
            }
        }
        step = saved;
    }
    return leave(rc);
}

/* ---- NVML: events ---- */

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set) {
    nvmlReturn_t rc = enter_system(F_nvmlEventSetCreate);
    if (rc == NVML_SUCCESS) {
        if (set && !the_set.open) {
            the_set.open = 1;
            *set = &the_set;
        } else {
            rc = set ? NVML_ERROR_UNKNOWN : NVML_ERROR_INVALID_ARGUMENT;
        }
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes) {
    nvmlReturn_t rc = enter(F_nvmlDeviceGetSupportedEventTypes, device);
    if (rc == NVML_SUCCESS) {
        rc = get_ull(device, K_EVENTS, eventTypes);
    }
    return leave(rc);
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes, nvmlEventSet_t set) {
    nvmlReturn_t rc = enter(F_nvmlDeviceRegisterEvents, device);
    if (rc == NVML_SUCCESS) {
        unsigned long long supported = has(device, K_EVENTS) ? ull(value(device, K_EVENTS)) : 0;
        if (set != &the_set || !the_set.open) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (eventTypes & ~supported) {
            rc = NVML_ERROR_NOT_SUPPORTED;
        } else {
            device->registered |= eventTypes;
        }
    }
    return leave(rc);
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms) {
    nvmlReturn_t rc = enter_system(F_nvmlEventSetWait_v2);
    if (rc == NVML_SUCCESS && (set != &the_set || !the_set.open || !data)) {
        rc = NVML_ERROR_INVALID_ARGUMENT;
    }
    if (rc != NVML_SUCCESS) {
        return leave(rc);
    }
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeoutms / 1000;
    deadline.tv_nsec += (long) (timeoutms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    for (;;) {
        for (int i = 0; i < nevents; i++) {
            queued_event *e = &events[i];
            if (e->done || e->step > step) {
                continue;
            }
            e->done = 1;
            /* an event of a type nobody registered for is lost, as with the driver */
            if (cards[e->card].registered & e->type) {
                data->device = &cards[e->card];
                data->eventType = e->type;
                data->eventData = e->data;
                data->gpuInstanceId = 0xFFFFFFFF;
                data->computeInstanceId = 0xFFFFFFFF;
                return leave(NVML_SUCCESS);
            }
        }
        if (!the_set.open || pthread_cond_timedwait(&stepped, &mu, &deadline) != 0) {
            return leave(NVML_ERROR_TIMEOUT);
        }
    }
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
    nvmlReturn_t rc = enter_system(F_nvmlEventSetFree);
    if (rc == NVML_SUCCESS) {
        if (set == &the_set && the_set.open) {
            the_set.open = 0;
            for (int i = 0; i < ncards; i++) {
                cards[i].registered = 0;
            }
            pthread_cond_broadcast(&stepped);
        } else {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        }
    }
    return leave(rc);
}

/* ---- the script ---- */

static int parse_code(const char *s, nvmlReturn_t *code) {
    for (size_t i = 0; i < sizeof RETURNS / sizeof RETURNS[0]; i++) {
        if (strcmp(s, RETURNS[i].name) == 0) {
            *code = RETURNS[i].code;
            return 1;
        }
    }
    char *end;
    long v = strtol(s, &end, 10);
    *code = (nvmlReturn_t) v;
    return *s && !*end;
}

static int parse_int(const char *s, int lo, int hi, int *out) {
    char *end;
    long v = s ? strtol(s, &end, 0) : 0;
    if (!s || !*s || *end || v < lo || v > hi) {
        return 0;
    }
    *out = (int) v;
    return 1;
}

static int parse_double(const char *s, double *out) {
    char *end;
    *out = s ? strtod(s, &end) : 0;
    return s && *s && !*end;
}

static int parse_event_type(const char *s, unsigned long long *type) {
    static const struct {
        const char *name;
        unsigned long long bit;
    } TYPES[] = {{"sbe", 0x1}, {"dbe", 0x2}, {"pstate", 0x4}, {"xid", 0x8}, {"clock", 0x10}};
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++) {
        if (strcmp(s, TYPES[i].name) == 0) {
            *type = TYPES[i].bit;
            return 1;
        }
    }
    char *end;
    *type = strtoull(s, &end, 0);
    return *s && !*end;
}

static char *rest_of_line(char *s) {
    while (*s == ' ' || *s == '\t') {
        s++;
    }
    return s;
}

static int fail_at(int line, const char *what) {
    snprintf(script_error, sizeof script_error, "line %d: %s", line, what);
    return line;
}

static int parse_card_line(int line, char *save) {
    int card;
    char *index = strtok_r(NULL, " \t", &save);
    char *key = strtok_r(NULL, " \t", &save);
    if (!parse_int(index, 0, ncards - 1, &card)) {
        return fail_at(line, "card index out of range (is 'cards N' above?)");
    }
    if (!key) {
        return fail_at(line, "card line without a key");
    }
    struct fake_card *c = &cards[card];
    char *text = save ? rest_of_line(save) : "";
    if (strcmp(key, "uuid") == 0 || strcmp(key, "name") == 0 || strcmp(key, "pci") == 0) {
        char *dst = key[0] == 'u' ? c->uuid : key[0] == 'n' ? c->name : c->pci;
        size_t size = key[0] == 'p' ? sizeof c->pci : sizeof c->uuid;
        if (strlen(text) >= size) {
            return fail_at(line, "text too long");
        }
        strcpy(dst, text);
        return 0;
    }
    if (strcmp(key, "proc") == 0 || strcmp(key, "gproc") == 0) {
        proc_list *list = key[0] == 'g' ? &c->gprocs : &c->procs;
        int pid;
        double bytes;
        if (list->n >= MAX_PROCS || !parse_int(strtok_r(NULL, " \t", &save), 1, INT_MAX, &pid)
                || !parse_double(strtok_r(NULL, " \t", &save), &bytes)) {
            return fail_at(line, "expected: card <i> proc|gproc <pid> <usedBytes|-1>");
        }
        list->e[list->n].pid = (unsigned int) pid;
        list->e[list->n].bytes = ull(bytes);
        list->n++;
        return 0;
    }
    for (int k = 0; k < K_COUNT; k++) {
        if (strcmp(key, KEY_NAMES[k]) == 0) {
            series *s = &c->values[k];
            s->n = 0;
            for (char *tok; (tok = strtok_r(NULL, " \t", &save)) != NULL; ) {
                if (s->n >= MAX_STEPS || !parse_double(tok, &s->v[s->n])) {
                    return fail_at(line, "bad or too many values");
                }
                s->n++;
            }
            return s->n > 0 ? 0 : fail_at(line, "key without values");
        }
    }
    return fail_at(line, "unknown card key");
}

static int parse_line(int line, char *text) {
    char *save = NULL;
    char *word = strtok_r(text, " \t", &save);
    if (!word) {
        return 0;
    }
    if (strcmp(word, "cards") == 0) {
        return parse_int(strtok_r(NULL, " \t", &save), 0, MAX_CARDS, &ncards) ? 0 : fail_at(line, "cards 0..16");
    }
    if (strcmp(word, "driver") == 0 || strcmp(word, "nvml") == 0) {
        char *dst = word[0] == 'd' ? driver_version : nvml_version;
        char *value = save ? rest_of_line(save) : "";
        if (strlen(value) >= sizeof driver_version) {
            return fail_at(line, "version too long");
        }
        strcpy(dst, value);
        return 0;
    }
    if (strcmp(word, "card") == 0) {
        return parse_card_line(line, save);
    }
    if (strcmp(word, "fail") == 0) {
        char *fn = strtok_r(NULL, " \t", &save);
        char *card = strtok_r(NULL, " \t", &save);
        char *code = strtok_r(NULL, " \t", &save);
        char *from = strtok_r(NULL, " \t", &save);
        char *until = strtok_r(NULL, " \t", &save);
        failure f = {-1, -1, 0, 0, -1};
        if (nfails >= MAX_FAILS || !fn || !card || !code) {
            return fail_at(line, "expected: fail <function|*> <card|*> <CODE> [fromStep [untilStep]]");
        }
        if (strcmp(fn, "*") != 0) {
            for (int i = 0; i < F_COUNT; i++) {
                if (strcmp(fn, FN_NAMES[i]) == 0) {
                    f.function = i;
                }
            }
            if (f.function < 0) {
                return fail_at(line, "unknown function");
            }
        }
        if ((strcmp(card, "*") != 0 && !parse_int(card, 0, ncards - 1, &f.card)) || !parse_code(code, &f.code)
                || (from && !parse_int(from, 0, INT_MAX, &f.from)) || (until && !parse_int(until, 0, INT_MAX, &f.until))) {
            return fail_at(line, "bad card, code or step");
        }
        fails[nfails++] = f;
        return 0;
    }
    if (strcmp(word, "event") == 0) {
        queued_event e = {0, 0, 0, 0, 0};
        char *data = NULL;
        if (nevents >= MAX_EVENTS || !parse_int(strtok_r(NULL, " \t", &save), 0, INT_MAX, &e.step)
                || !parse_int(strtok_r(NULL, " \t", &save), 0, ncards - 1, &e.card)) {
            return fail_at(line, "expected: event <step> <card> <xid|dbe|sbe|clock|mask> [data]");
        }
        char *type = strtok_r(NULL, " \t", &save);
        if (!type || !parse_event_type(type, &e.type)) {
            return fail_at(line, "bad event type");
        }
        if ((data = strtok_r(NULL, " \t", &save)) != NULL) {
            char *end;
            e.data = strtoull(data, &end, 0);
            if (*end) {
                return fail_at(line, "bad event data");
            }
        }
        events[nevents++] = e;
        return 0;
    }
    return fail_at(line, "unknown statement");
}

/* Replaces the whole state with the script's: 0 when loaded, -1 when unreadable, else the bad line's number. */
int fake_nvml_load_script(const char *path) {
    pthread_mutex_lock(&mu);
    memset(cards, 0, sizeof cards);
    for (int i = 0; i < MAX_CARDS; i++) {
        cards[i].grow_step = -1;
    }
    memset(calls, 0, sizeof calls);
    memset(gpm_samples, 0, sizeof gpm_samples);
    driver_version[0] = nvml_version[0] = '\0';
    ncards = nfails = nevents = step = initialized = 0;
    the_set.open = 0;
    script_error[0] = '\0';
    int rc = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(script_error, sizeof script_error, "cannot open %s", path);
        rc = -1;
    } else {
        char text[4096];
        for (int line = 1; rc == 0 && fgets(text, sizeof text, f); line++) {
            text[strcspn(text, "#\r\n")] = '\0';
            for (size_t n = strlen(text); n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t'); n--) {
                text[n - 1] = '\0';
            }
            rc = parse_line(line, text);
        }
        fclose(f);
    }
    pthread_cond_broadcast(&stepped);
    pthread_mutex_unlock(&mu);
    return rc;
}

/* Why the last load failed, or "". */
const char *fake_nvml_script_error(void) {
    return script_error;
}

/* Moves every card to the next step of its values and releases the events queued for it. */
void fake_nvml_step(void) {
    pthread_mutex_lock(&mu);
    step++;
    pthread_cond_broadcast(&stepped);
    pthread_mutex_unlock(&mu);
}

/* Calls of an NVML function since the script was loaded, for one card or (card -1) in all; -1 for an unknown name. */
long long fake_nvml_calls(const char *function, int card) {
    long long n = -1;
    pthread_mutex_lock(&mu);
    for (int f = 0; f < F_COUNT; f++) {
        if (strcmp(function, FN_NAMES[f]) == 0) {
            n = 0;
            for (int c = 0; c <= MAX_CARDS; c++) {
                n += card < 0 || c == card ? calls[f][c] : 0;
            }
        }
    }
    pthread_mutex_unlock(&mu);
    return n;
}

/*
 * A process that cannot call the fake_nvml_* functions (the probe started from the command line) scripts the
 * fake through its environment: FAKE_NVML_SCRIPT names the script to load when the library is loaded, and
 * FAKE_NVML_STEP_MS, when set, advances one step every that many milliseconds of wall time.
 */
static void *stepper(void *arg) {
    long ms = (long) (size_t) arg;
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
    for (;;) {
        nanosleep(&pause, NULL);
        fake_nvml_step();
    }
    return NULL;
}

__attribute__((constructor)) static void script_from_environment(void) {
    const char *script = getenv("FAKE_NVML_SCRIPT");
    if (script == NULL || script[0] == '\0') {
        return;
    }
    if (fake_nvml_load_script(script) != 0) {
        fprintf(stderr, "fake libnvidia-ml: FAKE_NVML_SCRIPT %s: %s\n", script, script_error);
        return;
    }
    const char *every = getenv("FAKE_NVML_STEP_MS");
    long ms = every == NULL ? 0 : strtol(every, NULL, 10);
    if (ms > 0) {
        pthread_t t;
        if (pthread_create(&t, NULL, stepper, (void *) (size_t) ms) == 0) {
            pthread_detach(t);
        }
    }
}
