#!/usr/bin/env bash
# Execute the configs of the held-out sets' CORRECT answers on a GPU, through Megatron-LM's own
# training loop (evals score --execute --engine megatron-lm), to confirm that every config the
# scorer accepts also captures, replays and trains.
#
#   bash benchmarks/run-evals-execute-h200.sh OUTDIR SPLIT_DIR [SPLIT_DIR ...]
#
# SPLIT_DIR: a held-out split (labels.jsonl + answers/answers.jsonl), e.g.
# evals/heldout-2026-12-03d/final. Only tasks with an `executes` check run, and only those of the
# installed megatron-core's era (the others are reported as skipped). Identical configs run once
# (cache keyed by config hash). Writes OUTDIR/evals-execute.json and .md.
set -uo pipefail
out=${1:?output folder}
shift
mkdir -p "$out"
answers="$out/correct-answers.jsonl"
python3 - "$answers" "$@" <<'PY'
import json, os, sys
out, splits = sys.argv[1], sys.argv[2:]
rows = []
for split in splits:
    labels = {json.loads(l)["id"]: json.loads(l)["label"] for l in open(os.path.join(split, "labels.jsonl")) if l.strip()}
    answers_dir = os.path.join(split, "answers")
    for line in open(os.path.join(answers_dir, "answers.jsonl")):
        if not line.strip():
            continue
        row = json.loads(line)
        if labels.get(row["agent"].rsplit("/", 1)[-1]) != "correct":
            continue
        if "answer_file" in row:  # the list is read from another folder: carry the text itself
            with open(os.path.join(answers_dir, row.pop("answer_file")), encoding="utf-8") as fh:
                row["answer"] = fh.read()
        rows.append(row)
with open(out, "w") as f:
    for row in rows:
        f.write(json.dumps(row) + "\n")
print(f"{len(rows)} correct answers from {len(splits)} split(s)")
PY
python3 -m skill_tools evals score --answers "$answers" --execute --engine megatron-lm \
  --exec-steps "${EXEC_STEPS:-8}" --exec-timeout "${EXEC_TIMEOUT:-240}" --cache-dir "$out/cache" \
  --json-out "$out/evals-execute.json" --markdown "$out/evals-execute.md"
echo "evals score rc=$?"
