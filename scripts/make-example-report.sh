#!/usr/bin/env bash
# Regenerates the two example artefacts in docs/ from the simulated course machine (tests/sim):
#   docs/example-report-course-machine.md   the full Markdown report, with a header saying it is simulated
#   docs/images/example-report/*.svg        the report's charts, which the Markdown embeds
#   docs/images/course-report.png           a screenshot of its HTML report: summary, all-reduce chart,
#                                           two measured-vs-expected charts (shown in README.md)
#   docs/images/terminal-brief.png          the terminal at the run's end, as a user sees it: the run
#                                           happens in a tmux pane of 100 columns (a real tty: colours,
#                                           wrapping), captured with its colours (aha to HTML, chromium)
# Needs a build with the simulator (scripts/build.sh) and Debian's tmux, aha, chromium, imagemagick
# and pngquant. Run it on an idle machine: the CPU figures in the report are real.
#   scripts/make-example-report.sh [--python PATH]     (default: /usr/bin/python3, Debian's CPU torch)
set -euo pipefail
cd "$(dirname "$0")/.."
python=/usr/bin/python3
if [[ "${1:-}" == "--python" ]]; then python="$2"; fi
for tool in tmux aha chromium convert pngquant; do
  command -v "$tool" >/dev/null || { echo "make-example-report: $tool is missing (apt-get install tmux aha chromium imagemagick pngquant)" >&2; exit 2; }
done
[[ -x build/lab_check && -d build/sim-nvidia ]] || { echo "make-example-report: build first (scripts/build.sh)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One run, in a tmux pane of its own server, so that the terminal is a real one; the reports are
# written beside it. The pane waits after the run so that its screen can be read.
tmux_cmd=(tmux -S "$work/tmux.sock" -f /dev/null)
"${tmux_cmd[@]}" new-session -d -x 100 -y 50 -s example \
  "env TERM=xterm-256color LD_LIBRARY_PATH=build/sim-nvidia LABCHECK_SIM_MACHINE=tests/sim/machines/course-4x4080.json \
   build/lab_check --python '$python' --out '$work/lab-report.md'; touch '$work/done'; sleep 600"
"${tmux_cmd[@]}" set-option -t example history-limit 50000 >/dev/null
for _ in $(seq 1 1200); do [[ -e "$work/done" ]] && break; sleep 0.5; done
"${tmux_cmd[@]}" capture-pane -e -p -S - -t example >"$work/terminal.ansi"
"${tmux_cmd[@]}" kill-server
[[ -s "$work/lab-report.md" && -s "$work/lab-report.html" ]] || { cat "$work/terminal.ansi" >&2; exit 1; }
{
  cat <<'EOF'
<!--
Example report (issue 11, item 5), made by scripts/make-example-report.sh on the simulated course
machine; rerun that script to regenerate it after a change to the report.
-->

> **Пример отчёта с симулированной машины, а не с настоящих видеокарт.** Это полный отчёт
> `lab_check` (по умолчанию, по-русски) для профиля машины курса — 4× RTX 4080 32 ГБ, PCIe 4.0 x16,
> без P2P и NVLink (`tests/sim/machines/course-4x4080.json`). Все цифры GPU взяты из профиля
> тестового симулятора (`tests/sim/README.md`): так выглядит отчёт, когда машина исправна.
> Разделы «Система», «Python», процессор и смоук-тесты — настоящие, с машины разработки на 2 ядра,
> где PyTorch собран только для CPU (отсюда «PyTorch не видит GPU» и смоук-тесты на CPU).
>
> *An example produced on the simulated machine of `tests/sim`, not on real GPUs: the GPU figures
> come from the course-machine profile; CPU, Python and smoke-test figures are those of a 2-core
> development machine with a CPU-only PyTorch.*

EOF
  # The report embeds its charts by their names beside it; here they live in docs/images/example-report/.
  sed 's#](\(lab-report-[^)]*\.svg\))#](images/example-report/\1)#g' "$work/lab-report.md"
} >docs/example-report-course-machine.md
rm -rf docs/images/example-report
mkdir -p docs/images/example-report
cp "$work"/lab-report-*.svg docs/images/example-report/

# Where the pieces are: a copy of the page with a script that writes the boxes into the DOM (the
# report itself has no script), read with --dump-dom at the screenshot's width.
chrome=(chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-dev-shm-usage
        --user-data-dir="$work/profile" --hide-scrollbars --window-size=1200,1600)
ids='["summary","chart-busbw","chart-expected-matmul_bf16-rtx-4080-32gb","chart-expected-h2d"]'
sed "s#</body>#<script>addEventListener('load',()=>{const o={};for(const id of $ids){const r=document.getElementById(id).getBoundingClientRect();o[id]=[Math.round(r.top+scrollY),Math.round(r.bottom+scrollY)]}const p=document.createElement('pre');p.id='boxes';p.textContent=JSON.stringify(o);document.body.append(p)})</script></body>#" \
  "$work/lab-report.html" >"$work/measure.html"
boxes=$(timeout 120 "${chrome[@]}" --dump-dom "file://$work/measure.html" 2>/dev/null | sed -n 's#.*<pre id="boxes">\([^<]*\)</pre>.*#\1#p')
[[ -n "$boxes" ]] || { echo "make-example-report: could not measure the page" >&2; exit 1; }
read -r summary_end busbw_top busbw_end bf16_top bf16_end h2d_top h2d_end < <(python3 -c '
import json, sys
b = json.loads(sys.argv[1])
print(b["summary"][1], *b["chart-busbw"], *b["chart-expected-matmul_bf16-rtx-4080-32gb"], *b["chart-expected-h2d"])' "$boxes")
height=$((busbw_end + 40))
timeout 120 "${chrome[@]/--window-size=1200,1600/--window-size=1200,$height}" --screenshot="$work/page.png" \
  "file://$work/lab-report.html" 2>/dev/null
# Debian's ImageMagick policy caps images at 16K pixels a side; the page is taller.
mkdir -p "$work/magick"
sed 's/name="height" value="16KP"/name="height" value="64KP"/' /etc/ImageMagick-6/policy.xml >"$work/magick/policy.xml"
export MAGICK_CONFIGURE_PATH="$work/magick"
crop() { convert "$work/page.png" -crop "1200x$(($2 - $1 + 24))+0+$(($1 - 12))" +repage "$3"; }
crop 0 "$summary_end" "$work/a.png"
crop "$busbw_top" "$busbw_end" "$work/b.png"
crop "$bf16_top" "$bf16_end" "$work/c.png"
crop "$h2d_top" "$h2d_end" "$work/d.png"
mkdir -p docs/images
convert "$work/a.png" "$work/b.png" "$work/c.png" "$work/d.png" -append "$work/course-report.png"
pngquant --force --quality 60-90 --output docs/images/course-report.png "$work/course-report.png"

# The terminal: the screen from the command line to the end of the brief (the pane's empty tail
# dropped), dark as most terminals are, at the width of its 100 columns.
sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$work/terminal.ansi" >"$work/terminal.trimmed"
aha --black --title "lab_check" --line-fix <"$work/terminal.trimmed" >"$work/terminal.html"
sed -i 's#<pre>#<pre style="font: 13px/1.25 DejaVu Sans Mono, monospace; margin: 12px; width: 100ch">#' "$work/terminal.html"
lines=$(wc -l <"$work/terminal.trimmed")
timeout 120 "${chrome[@]/--window-size=1200,1600/--window-size=860,$((lines * 17 + 30))}" \
  --screenshot="$work/terminal.png" "file://$work/terminal.html" 2>/dev/null
pngquant --force --quality 60-90 --output docs/images/terminal-brief.png "$work/terminal.png"
echo "wrote docs/example-report-course-machine.md, docs/images/course-report.png and docs/images/terminal-brief.png ($(stat -c %s docs/images/course-report.png) bytes)"
