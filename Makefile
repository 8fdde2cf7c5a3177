# The README's two commands: `make run` and `make test`. Both install missing system packages first.
SWIFT ?= swift
OUT ?= out
SAMPLE ?= $(OUT)/sample.mp4
RUN_BIN = .build/release/framefarm

.PHONY: run test deps deps-test build build-release bench clean

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
	FRAMEFARM_VALIDATION=1 FRAMEFARM_REQUIRE_GPU=1 $(SWIFT) test --skip-build

bench: deps
	@scripts/install-deps.sh --bench
	$(SWIFT) run -c release bench

clean:
	rm -rf .build $(OUT)
