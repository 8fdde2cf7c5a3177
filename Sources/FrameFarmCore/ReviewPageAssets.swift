/// The review page's style and its one script, inlined once per page: the page works from `file://` and asks
/// nothing of any server (no fonts, scripts or styles from elsewhere).
enum ReviewPageAssets {
    static let style = """
        body { font: 14px/1.4 system-ui, sans-serif; margin: 0 24px 24px; background: #f4f4f6; color: #1d1d1f; }
        [hidden] { display: none !important; }
        :focus-visible { outline: 3px solid #0a64d6; outline-offset: 2px; }
        .item { scroll-margin-top: 64px; }
        section { background: #fff; border-radius: 12px; padding: 16px 20px; margin-bottom: 24px; }
        h2 { margin: 0 0 4px; font-size: 20px; overflow-wrap: anywhere; } h4 { margin: 0 0 4px; } .path { color: #6e6e73; word-break: break-all; }
        .facts { color: #3a3a3c; margin: 8px 0; } .warning { background: #fff4ce; border-radius: 8px; padding: 8px 12px; }
        .lint { list-style: none; padding: 0; } .lint li { margin: 4px 0; } .lint li.error { background: #fde2e1; border-radius: 8px; padding: 8px 12px; }
        .problems li { margin: 2px 0; overflow-wrap: anywhere; } .failed { color: #b3261e; font-weight: 600; }
        .summary { position: sticky; top: 0; z-index: 5; display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 10px 0; background: #f4f4f6; }
        .summary button, .name-filter { font: inherit; border: 1px solid #c7c7cc; border-radius: 16px; background: #fff; padding: 4px 12px; }
        .summary button { cursor: pointer; } .summary button[aria-pressed="true"] { background: #1d1d1f; color: #fff; }
        .summary button:disabled { opacity: .5; cursor: default; } .keys { color: #6e6e73; font-size: 12px; }
        .scrub { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; }
        .tile { background: #000 no-repeat; border-radius: 4px; flex: none; }
        .bar { flex: 1 1 320px; } .hint { color: #6e6e73; font-size: 12px; } .time { font-variant-numeric: tabular-nums; }
        .timeline { position: relative; height: 32px; cursor: pointer; border-radius: 4px;
                    background: linear-gradient(#c7c7cc, #c7c7cc) center / 100% 6px no-repeat; touch-action: none; }
        .cursor { position: absolute; top: 2px; bottom: 2px; left: 0; width: 3px; margin-left: -1px; background: #0a64d6; }
        .player-status { flex-basis: 100%; margin: 0; font-weight: 600; } .player-status:empty { display: none; }
        .scrub video { flex-basis: 100%; max-width: 640px; background: #000; border-radius: 6px; }
        .devices { display: flex; flex-wrap: wrap; gap: 24px; margin-top: 8px; }
        .modes { display: flex; gap: 24px; flex-wrap: wrap; align-items: flex-start; }
        figure { margin: 0; width: 220px; } figcaption { font-size: 12px; color: #3a3a3c; } .default { color: #0a7d32; font-weight: 600; }
        .screen { position: relative; isolation: isolate; background: #000; border-radius: 6px; }
        .screen img { display: block; width: 100%; height: 100%; border-radius: 6px; }
        .screen i { position: absolute; display: none; box-sizing: border-box; pointer-events: none; }
        .safe-area { border: 2px dashed #ffd60a; } .picture { border: 2px solid #30d158; }
        .crop { z-index: -1; background: rgba(255, 59, 48, .35); border: 2px dashed #ff3b30; }
        .video:has(.show-safe-area:checked) .safe-area, .video:has(.show-crop:checked) .crop,
        .video:has(.show-picture:checked) .picture { display: block; }
        .sheets img { max-width: 100%; margin: 4px 0; } .poster img { max-width: 480px; width: 100%; }
        """

    /// Scrubbing, playing, filtering and keys, for every section at once (event delegation: nothing per video).
    static let script = #"""
        "use strict";
        const formatTime = milliseconds => {
          const total = Math.round(milliseconds), seconds = Math.floor(total / 1000);
          return Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0") + "." + String(total % 1000).padStart(3, "0");
        };

        // A timeline's track from its data attributes, read on first use: runs of [start ms, duration ms, sheet,
        // x, y, count], each `count` cues one after another, each tile right of the one before.
        function trackOf(scrub) {
          if (!scrub.track) {
            const numbers = scrub.dataset.cues.split(",").map(Number), width = parseInt(scrub.dataset.tile), cues = [];
            for (let i = 0; i + 5 < numbers.length; i += 6) {
              const [start, duration, sheet, x, y, count] = numbers.slice(i, i + 6);
              for (let k = 0; k < count; k++) {
                cues.push({ start: start + k * duration, end: start + (k + 1) * duration, sheet, x: x + k * width, y });
              }
            }
            scrub.track = { cues, sheets: scrub.dataset.sheets.split(" "), duration: cues[cues.length - 1].end, shown: 0, time: 0 };
          }
          return scrub.track;
        }

        // The cue covering `time`: the last that starts at or before it (cues are in time order).
        function cueIndexAt(track, time) {
          let low = 0, high = track.cues.length - 1;
          while (low < high) {
            const middle = (low + high + 1) >> 1;
            if (track.cues[middle].start <= time) low = middle; else high = middle - 1;
          }
          return low;
        }

        function show(scrub, index, time) {
          const track = trackOf(scrub), cue = track.cues[index], text = formatTime(time);
          track.shown = index;
          track.time = time;
          const tile = scrub.querySelector(".tile"), bar = scrub.querySelector(".timeline");
          tile.style.backgroundImage = 'url("' + track.sheets[cue.sheet] + '")';
          tile.style.backgroundPosition = -cue.x + "px " + -cue.y + "px";
          tile.setAttribute("aria-label", "Thumbnail at " + text);
          scrub.querySelector(".time").textContent = text + " / " + formatTime(track.duration);
          scrub.querySelector(".cursor").style.left = (time / track.duration * 100) + "%";
          bar.setAttribute("aria-valuenow", (time / 1000).toFixed(3));
          bar.setAttribute("aria-valuetext", text);
        }

        function timeAtPointer(scrub, event) {
          const box = scrub.querySelector(".timeline").getBoundingClientRect();
          return Math.min(Math.max((event.clientX - box.left) / box.width, 0), 1) * trackOf(scrub).duration;
        }

        const mediaErrors = {
          1: "loading was stopped",
          2: "the source could not be reached",
          3: "the browser could not decode it",
          4: "the browser cannot play this format or codec, or cannot reach the source",
        };

        function play(scrub, time) {
          const video = scrub.querySelector("video"), status = scrub.querySelector(".player-status");
          const source = scrub.dataset.source;
          if (!source) {
            status.textContent = "Cannot play: the page does not know where this video's source is.";
            return;
          }
          status.textContent = "Loading " + source + " at " + formatTime(time) + "…";
          video.hidden = false;
          // Plays once the seek is done, so the video starts from the frame asked for.
          const start = () => {
            video.addEventListener("seeked", () => video.play().then(() => { status.textContent = ""; }, () => {}), { once: true });
            video.currentTime = time / 1000;
          };
          if (video.getAttribute("src") !== source) {
            video.preload = "auto";  // "none" until asked, so the page loads no video by itself
            video.src = source;
            video.addEventListener("loadedmetadata", start, { once: true });
          } else if (video.readyState >= 1) {
            start();
          } else {
            video.addEventListener("loadedmetadata", start, { once: true });
          }
        }

        // Media errors don't bubble: caught on the way down, for every video of the page.
        document.addEventListener("error", event => {
          const video = event.target;
          if (!(video instanceof HTMLVideoElement) || !video.error) return;
          const scrub = video.closest(".scrub");
          scrub.querySelector(".player-status").textContent =
            "Cannot play " + scrub.dataset.source + ": " + (mediaErrors[video.error.code] || "unknown error") + ".";
          video.hidden = true;
          video.removeAttribute("src");
        }, true);

        document.addEventListener("pointermove", event => {
          const scrub = event.target.closest && event.target.closest(".timeline") && event.target.closest(".scrub");
          if (!scrub) return;
          const time = timeAtPointer(scrub, event);
          show(scrub, cueIndexAt(trackOf(scrub), time), time);
        });

        const filters = { flag: "", name: "" };
        document.addEventListener("click", event => {
          const scrub = event.target.closest(".timeline") && event.target.closest(".scrub");
          if (scrub) {
            const time = timeAtPointer(scrub, event);
            show(scrub, cueIndexAt(trackOf(scrub), time), time);
            play(scrub, time);
          }
          const button = event.target.closest(".summary button");
          if (button) {
            filters.flag = button.dataset.filter;
            applyFilters();
          }
        });

        function applyFilters() {
          for (const item of document.querySelectorAll(".item")) {
            const flagged = !filters.flag || item.dataset.flags.split(" ").includes(filters.flag);
            item.hidden = !flagged || !item.dataset.name.includes(filters.name);
          }
          for (const button of document.querySelectorAll(".summary button")) {
            button.setAttribute("aria-pressed", String(button.dataset.filter === filters.flag));
          }
        }
        document.addEventListener("input", event => {
          if (!event.target.matches(".name-filter")) return;
          filters.name = event.target.value.trim().toLowerCase();
          applyFilters();
        });

        // j/k: the next or previous video (or failure) shown; arrows on a timeline: the next or previous cue.
        document.addEventListener("keydown", event => {
          if (event.ctrlKey || event.metaKey || event.altKey || event.target.closest("input, textarea, select")) return;
          const bar = event.target.closest(".timeline");
          if (bar) {
            const scrub = bar.closest(".scrub"), track = trackOf(scrub), last = track.cues.length - 1;
            const step = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity }[event.key];
            if (step !== undefined) {
              const index = Math.min(Math.max(track.shown + step, 0), last);
              show(scrub, index, track.cues[index].start);
              event.preventDefault();
              return;
            }
            if (event.key === "Enter" || event.key === " ") {
              play(scrub, track.time);
              event.preventDefault();
              return;
            }
          }
          if (event.key !== "j" && event.key !== "k") return;
          const items = [...document.querySelectorAll(".item")].filter(item => !item.hidden);
          if (items.length === 0) return;
          const current = items.findIndex(item => item.contains(document.activeElement));
          const next = current < 0 ? (event.key === "j" ? 0 : items.length - 1)
                                   : Math.min(Math.max(current + (event.key === "j" ? 1 : -1), 0), items.length - 1);
          items[next].focus();
          items[next].scrollIntoView({ block: "start" });
        });

        // Each timeline shows its first tile once it scrolls into view (the sheets load only then).
        const firstTiles = new IntersectionObserver(entries => {
          for (const entry of entries) {
            if (!entry.isIntersecting) continue;
            firstTiles.unobserve(entry.target);
            if (!entry.target.track) show(entry.target, 0, 0);
          }
        });
        document.querySelectorAll(".scrub").forEach(scrub => firstTiles.observe(scrub));
        """#
}
