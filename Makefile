# The README's two commands: `make run` and `make test`. Both install missing system packages first.
SWIFT ?= swift
OUT ?= out
SAMPLE ?= $(OUT)/sample.mp4
RUN_BIN = .build/release/framefarm

.PHONY: run test test-cluster test-image image test-sanitize test-ffmpeg-next soak deps deps-test build build-release bench clean

deps:
	@scripts/install-deps.sh

deps-test:
	@scripts/install-deps.sh --test

build: deps
	$(SWIFT) build

build-release: deps
	$(SWIFT) build -c release --product framefarm

# The main job on the built-in sample: a synthetic video made by `framefarm sample`.
run: build-release
	@mkdir -p $(OUT)
	@test -f $(SAMPLE) || $(RUN_BIN) sample --out $(SAMPLE) --duration 30 --size 1280x720 --letterbox --keyframe-interval 2
	$(RUN_BIN) probe $(SAMPLE)
	$(RUN_BIN) preview $(SAMPLE) --out $(OUT)
	$(RUN_BIN) thumbnails $(SAMPLE) --out $(OUT) --interval 2
	$(RUN_BIN) poster $(SAMPLE) --out $(OUT)
	@echo "framefarm: open $(OUT)/index.html (the contact sheet); outputs are under $(OUT)/"

# The whole suite on the CPU Vulkan driver with the validation layer on (any validation message fails a test).
test: deps-test
	$(SWIFT) build --build-tests
	FRAMEFARM_VALIDATION=1 SWIFT=$(SWIFT) scripts/run-tests.sh

# FrameFarm on a one-node Slurm cluster started in a temporary folder (scripts/test-cluster.sh says what it checks);
# installs slurm-wlm and munge when missing. CI runs it after `make test`.
test-cluster: build
	scripts/test-cluster.sh

# The container image, from Debian's packages alone (docs/container.md): localhost/framefarm:<version> and :latest in
# podman's storage, and .build/image/framefarm-<version>.oci.tar to push to a registry.
image: deps
	@scripts/install-deps.sh --image
	scripts/image/build.sh

# The image built and run here in containers on lavapipe, its outputs compared with the host's
# (scripts/test-image.sh lists every check); installs podman when missing. CI runs it after test-cluster.
test-image: deps
	scripts/test-image.sh

# The suite under AddressSanitizer (with LeakSanitizer) and ThreadSanitizer, each in its own scratch folder,
# with the validation layer on. LSan suppressions cover third-party code only (Tests/Sanitizers/lsan.supp says why).
# Skipped under sanitizers: tests that measure RSS (shadow memory and ASan's quarantine make RSS meaningless;
# `make test` and `make soak` check it) and the SIGKILL test (20 x 3 CLI runs, minutes under a sanitizer; its
# runs are plain process starts that `make test` covers).
SANITIZE_SKIP = --skip thousandSmallBatchesHoldSteady --skip aLongListIsReadInLittleMemory --skip KillResumeTests
SANITIZE_ENV = FRAMEFARM_VALIDATION=1
# The Vulkan loader unloads lavapipe at vkDestroyInstance; what lavapipe still holds in its globals (128 bytes of
# process-wide state) then looks leaked when a CLI process exits, from an <unknown module> no suppression can
# name. Preloaded into the CLI processes the tests start, and opened with RTLD_NODELETE by the test process itself
# (the GPU fixtures), lavapipe stays mapped, its globals stay scanned, and nothing is reported; FrameFarm's own
# allocations are checked as before.
LAVAPIPE = $(firstword $(wildcard /usr/lib/*/libvulkan_lvp.so))
test-sanitize: deps-test
	$(SWIFT) build --build-tests -c debug --sanitize=address --scratch-path .build-asan
	$(SANITIZE_ENV) FRAMEFARM_TEST_CLI_PRELOAD=$(LAVAPIPE) \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/Sanitizers/lsan.supp:print_suppressions=0 \
	  $(SWIFT) test --skip-build --sanitize=address --scratch-path .build-asan $(SANITIZE_SKIP)
	$(SWIFT) build --build-tests -c debug --sanitize=thread --scratch-path .build-tsan
	$(SANITIZE_ENV) TSAN_OPTIONS=halt_on_error=0 $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan $(SANITIZE_SKIP)

# The suite built against Debian 13's FFmpeg 7.1, built from Debian's source into .build/ffmpeg-next (about 15
# minutes the first time; not in `make test`): the check that Sources/CFFmpeg/compat.h covers FFmpeg 7.
test-ffmpeg-next:
	scripts/test-ffmpeg-next.sh

# 500 small inputs through preview + thumbnails, 8 in flight: flat RSS and file descriptors (minutes; not in `make test`).
soak: deps-test
	$(SWIFT) build --build-tests
	FRAMEFARM_SOAK=1 $(SWIFT) test --skip-build --filter SoakTests

bench: deps
	@scripts/install-deps.sh --bench
	$(SWIFT) build -c release --product framefarm
	$(SWIFT) run -c release bench

clean:
	rm -rf .build .build-asan .build-tsan .build-ffmpeg-next $(OUT)
