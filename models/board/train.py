"""Train the cell classifier: ``python -m models.board.train DATA.npz [DATA2.npz ...]``.

Fixed seeds, one thread unless ``--threads`` (the machine is shared); ``--device cuda`` trains on a
GPU (crops and augmentation there too; a GPU run is seeded but not bit-reproducible); ``--width`` scales the
network's channels (``net.CellNet``: 1.5 for the font model). Crops from ``make_data``; real
photo crops (from the training games only) are drawn ``--real-weight`` (4) times as often as
render crops. On-the-fly augmentation: shift, turn and scale (a finder's error,
tiles off-centre), per-channel gain and offset (light), blur and noise. Writes
``models/board/board_cells.onnx`` (via ``export``), ``labels.json`` and a log of
the epochs.

A long run on the CPU (issue 69) trains on the crop cache (``--cache``: ``crop_cache.py``'s train
shards; its check shards, the calibration families and the held-out games' photos, measured after
each epoch) and keeps its whole state in ``--checkpoint`` (``training_run/checkpoint.pt``), saved
every ``--save-every`` seconds, with its log (``training_run/train.log``) and each epoch's model
(``training_run/board_cells.onnx``; the committed models are left alone). ``--resume`` goes on from
the checkpoint with its own settings and data, as if it had not stopped; ``--grow`` adds, at each
epoch's start, the shards rendered since (the cache may be built while the run trains); ``--stop-after
S`` stops it, saved, after S seconds (a session's end). The log counts the CPU hours spent. ``--average-from E``
keeps the running mean of the weights at the end of each epoch after the E-th (the schedule's tail), exported as
``board_cells_average.onnx`` beside each epoch's model and measured on the check shards too: one epoch's weights
may sit on a knife's edge for a class (the photos' blanks swung from 18 to 57 of 57 between epochs), their mean
less so. ``--also`` adds crop files beside the cache's shards (the painted blanks of ``real_blanks.py``),
``--without`` leaves shards out by name, ``--class-weight '*=3'`` draws a class's crops more often.
"""

from __future__ import annotations

import argparse
import copy
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from rules_core.alphabet import LETTERS
from vision.board.labels import INDEX

from . import crop_cache
from .checkpoint import RunState, average_of, generator_at, restore, save, settings_of
from .export import export
from .net import CellNet

HERE = Path(__file__).resolve().parent
RUN = HERE / "training_run"  # the cache run's checkpoint, log and candidate model (issue 69)
SEED = 2017
LABEL_SMOOTHING = 0.05  # caps a right reading's probability near 0.95: the sureness the tracker's 0.7 was set with


def augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """x: N x 3 x 40 x 40 in 0..1 -> the same, disturbed."""
    n, dev = x.shape[0], x.device  # ``gen`` lives on the crops' device
    angle = (torch.rand(n, generator=gen, device=dev) - 0.5) * 2 * math.radians(8)
    scale = 1 + (torch.rand(n, generator=gen, device=dev) - 0.5) * 0.16
    shift = (torch.rand(n, 2, generator=gen, device=dev) - 0.5) * 2 * (3.0 / 20)
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    theta = torch.stack([torch.stack([cos, -sin, shift[:, 0]], 1), torch.stack([sin, cos, shift[:, 1]], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
    gain = 1 + (torch.rand(n, 3, 1, 1, generator=gen, device=dev) - 0.5) * 0.4
    offset = (torch.rand(n, 1, 1, 1, generator=gen, device=dev) - 0.5) * 0.2
    contrast = 1 + (torch.rand(n, 1, 1, 1, generator=gen, device=dev) - 0.5) * 0.5
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * contrast + mean
    x = x * gain + offset
    blur = torch.rand(n, generator=gen, device=dev) < 0.25
    if blur.any():
        x[blur] = F.avg_pool2d(x[blur], 3, 1, 1, count_include_pad=False)
    x = x + torch.randn(x.shape, generator=gen, device=dev) * (torch.rand(n, 1, 1, 1, generator=gen, device=dev) * 0.04)
    return x.clamp(0, 1)


def load(paths: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    xs, ys, ss = [], [], []
    for path in paths:
        data = np.load(path)
        xs.append(data["x"]); ys.append(data["y"]); ss.append(data["source"])
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ss)


def split_crops(source: np.ndarray, rng: np.random.Generator,
                real_weight: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Crop indices for training and validation (5 %), and each training crop's drawing
    probability (real photo crops, ``source == 1``, weighed ``real_weight``)."""
    order = rng.permutation(len(source))
    val, train = order[: len(source) // 20], order[len(source) // 20 :]
    weights = np.where(source[train] == 1, real_weight, 1.0)
    return train, val, weights / weights.sum()


def main() -> None:
    args = parse(sys.argv[1:])
    checkpoint = Path(args.checkpoint) if args.checkpoint else None
    out = Path(args.out or (checkpoint.parent / "board_cells.onnx" if args.cache and checkpoint else HERE / "board_cells.onnx"))
    out.parent.mkdir(parents=True, exist_ok=True)  # before hours of training, not after
    run(args, checkpoint, out)


def parse(argv: list[str]) -> argparse.Namespace:
    """The run's settings; ``--resume``: the checkpoint's own, but for where and how fast it runs."""
    parser = argparse.ArgumentParser()
    parser.add_argument("data", nargs="*", help="crops from make_data (or --cache)")
    parser.add_argument("--cache", action="store_true", help="train on the crop cache's train shards, measure on its check shards "
                        "(crop_cache.py)")
    parser.add_argument("--resume", action="store_true", help="go on from --checkpoint with its settings and data")
    parser.add_argument("--grow", action="store_true", help="with --cache: at each epoch's start, add the train shards rendered since")
    parser.add_argument("--checkpoint", default="", help=f"the run's state, saved every --save-every seconds (--cache: {RUN / 'checkpoint.pt'})")
    parser.add_argument("--save-every", type=float, default=300.0)
    parser.add_argument("--stop-after", type=float, default=0.0, help="stop (state saved) after so many seconds; 0: at the end")
    parser.add_argument("--epochs", type=int, default=14)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--epoch-size", type=int, default=0, help="crops drawn per epoch (default: the training set's size)")
    parser.add_argument("--real-weight", type=float, default=4.0, help="how much more often a real photo crop is drawn")
    parser.add_argument("--real-share", type=float, default=0.0, help="with --cache: the share of draws that are real photo "
                        "crops, instead of --real-weight (the same share while the cache grows)")
    parser.add_argument("--out", default="", help=f"the exported model (default {HERE / 'board_cells.onnx'}; --cache: "
                        f"{RUN / 'board_cells.onnx'}, the committed one untouched)")
    parser.add_argument("--seed", type=int, default=SEED, help="weights, draws and augmentation (another seed: a model trained apart)")
    parser.add_argument("--width", type=float, default=1.0, help="channels per layer, times the committed network's")
    parser.add_argument("--average-from", type=int, default=0, help="average the weights at the ends of the epochs after "
                        "this one (0: none); on --resume of a checkpoint started without it, this value")
    parser.add_argument("--also", action="append", default=[], metavar="DATA.npz", help="with --cache: crops trained on "
                        "beside the cache's shards (e.g. real_blanks.npz; looked for in the cache on another machine)")
    parser.add_argument("--without", action="append", default=[], metavar="PATTERN", help="with --cache: shards left out, "
                        "by name (fnmatch: 's*' leaves out the big-letter shards)")
    parser.add_argument("--class-weight", action="append", default=[], metavar="CLASS=W",
                        help="draw the crops of CLASS (a label of labels.json, e.g. '*') W times as often; repeatable")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu", help='"cuda" to train on a GPU')
    args = parser.parse_args(argv)
    args.checkpoint = args.checkpoint or (str(RUN / "checkpoint.pt") if args.cache or args.resume else "")
    if args.resume:
        if not Path(args.checkpoint).is_file():
            parser.error(f"no checkpoint to resume: {args.checkpoint}")
        kept = {name: getattr(args, name) for name in ("checkpoint", "threads", "device", "save_every", "stop_after", "grow")}
        vars(args).update(settings_of(Path(args.checkpoint)), **kept, resume=True)
    if not args.data and not args.cache:
        parser.error("crops to train on: DATA.npz ... or --cache")
    return args


def run(args: argparse.Namespace, checkpoint: Path | None, out: Path) -> None:
    """Train (or go on training) as ``args`` say, the state saved to ``checkpoint`` now and then."""
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    torch.backends.cudnn.benchmark = device.type == "cuda"
    gen = torch.Generator(device=device).manual_seed(args.seed)
    saved_data = settings_of_data(checkpoint) if args.resume and checkpoint else None
    data, checks = datasets(args, saved_data)
    x, y, source = load(data)
    if args.cache:
        train, weights = np.arange(len(y)), draw_weights(source, args.real_weight, args.real_share)
        weights = weighed_by_class(weights, y, args.class_weight)
        checks_xy = {Path(p).stem: load([p])[:2] for p in checks}
    else:
        train, val, weights = split_crops(source, np.random.default_rng(args.seed), args.real_weight)
        weights = weighed_by_class(weights, y[train], args.class_weight)
        checks_xy = {"val": (x[val], y[val])}
    model = CellNet(width=args.width).to(device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps_per_epoch = (args.epoch_size or len(train)) // args.batch
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr, total_steps=args.epochs * steps_per_epoch)
    settings = {k: v for k, v in vars(args).items() if k not in ("resume", "grow", "threads", "device", "save_every", "stop_after")}
    state = RunState(settings, data, epoch_rng=np.random.default_rng(args.seed + 1).bit_generator.state)
    average = None
    if args.resume and checkpoint:
        state = restore(checkpoint, model, optimiser, schedule, gen)
        average = average_of(checkpoint)
        state.settings.setdefault("average_from", args.average_from)  # a run started before it keeps it from now on
        note(state, checkpoint, f"resumed at epoch {state.epoch + 1} step {state.step} ({len(data)} data files)")
        state.data = data  # where this machine keeps them
    note(state, checkpoint, f"{len(train)} train crops ({int((source[train] == 1).sum())} real), checks "
         + ", ".join(f"{k} {len(v[1])}" for k, v in checks_xy.items()))
    xt = torch.from_numpy(x).permute(0, 3, 1, 2).to(device)  # N x 3 x 40 x 40 uint8
    yt = torch.from_numpy(y).to(device)
    started = time.time()
    clock = {"cpu": time.process_time(), "saved": time.time()}

    def checkpoint_now() -> None:
        state.cpu_seconds += time.process_time() - clock["cpu"]
        clock["cpu"], clock["saved"] = time.process_time(), time.time()
        if checkpoint:
            save(checkpoint, state, model, optimiser, schedule, gen, average)

    def keep(step: int) -> bool:
        """Save now and then; False when the run must stop (state saved)."""
        state.step = step
        stop = bool(args.stop_after) and time.time() - started >= args.stop_after
        if stop or time.time() - clock["saved"] >= args.save_every:
            checkpoint_now()
        return not stop

    while state.epoch < args.epochs:
        grown = [str(s.path) for s in crop_cache.present("train") if str(s.path) not in state.data] if args.grow and state.step == 0 else []
        if grown:  # at an epoch's start only: a resumed epoch draws from the data it began with
            state.data += grown
            x, y, source = load(state.data)
            xt, yt = torch.from_numpy(x).permute(0, 3, 1, 2).to(device), torch.from_numpy(y).to(device)
            train, weights = np.arange(len(y)), draw_weights(source, args.real_weight, args.real_share)
            weights = weighed_by_class(weights, y, args.class_weight)
            note(state, checkpoint, f"grown by {', '.join(Path(p).stem for p in grown)}: {len(train)} train crops "
                 f"({int((source == 1).sum())} real)")
        rng = generator_at(state.epoch_rng)
        picks = rng.choice(train, size=steps_per_epoch * args.batch, p=weights)
        model.train()
        loss, finished = train_steps(model, optimiser, schedule, xt, yt, picks, args.batch, gen, state.step, keep)
        if not finished:
            note(state, checkpoint, f"stopped at epoch {state.epoch + 1} step {state.step}; resume with --resume")
            return
        state.epoch, state.step, state.epoch_rng = state.epoch + 1, 0, rng.bit_generator.state
        measured = measure_checks(model, checks_xy, device)
        cpu = state.cpu_seconds + time.process_time() - clock["cpu"]
        note(state, checkpoint, f"epoch {state.epoch}/{args.epochs}: loss {loss:.4f} {measured} cpu {cpu / 3600:.2f} h")
        export(copy.deepcopy(model).cpu(), out)  # each epoch's: a run stopped early leaves its last
        if args.average_from and state.epoch > args.average_from:
            average, state.averaged = running_mean(average, model, state.averaged), state.averaged + 1
            averaged = copy.deepcopy(model)
            averaged.load_state_dict(average)
            note(state, checkpoint, f"average of epochs {args.average_from + 1}-{state.epoch}: "
                 f"{measure_checks(averaged, checks_xy, device)}")
            export(averaged.cpu(), out.with_name(f"{out.stem}_average{out.suffix}"))
        checkpoint_now()
    note(state, checkpoint, f"exported {out}")


def running_mean(average: dict[str, torch.Tensor] | None, model: CellNet, count: int) -> dict[str, torch.Tensor]:
    """The mean of ``count`` state dicts (``average``) and the model's: weights and batch-norm statistics averaged,
    whole numbers (batches counted) the model's."""
    now = {k: v.detach().clone() for k, v in model.state_dict().items()}
    if average is None or count == 0:
        return now
    return {k: average[k] + (v - average[k]) / (count + 1) if v.is_floating_point() else v for k, v in now.items()}


def draw_weights(source: np.ndarray, real_weight: float, real_share: float = 0.0) -> np.ndarray:
    """Each crop's drawing probability: a real photo's (``source == 1``) ``real_weight`` times a render's,
    or, with ``real_share``, the real photos together that share of the draws (whatever the renders' number)."""
    real = source == 1
    if real_share and real.any() and (~real).any():
        return np.where(real, real_share / real.sum(), (1 - real_share) / (~real).sum())
    weights = np.where(real, real_weight, 1.0)
    return weights / weights.sum()


def weighed_by_class(weights: np.ndarray, labels: np.ndarray, settings: list[str]) -> np.ndarray:
    """Drawing probabilities with the crops of each ``CLASS=W`` of ``settings`` weighed W times more, renormalised."""
    out = weights.astype(np.float64).copy()
    for setting in settings:
        name, _, value = setting.rpartition("=")
        if name not in INDEX:
            raise SystemExit(f"--class-weight {setting!r}: {name!r} is no class of labels.json")
        out[labels == INDEX[name]] *= float(value)
    return out / out.sum()


def settings_of_data(checkpoint: Path) -> list[str]:
    return list(torch.load(checkpoint, weights_only=False)["run"]["data"])


def datasets(args: argparse.Namespace, saved: list[str] | None) -> tuple[list[str], list[str]]:
    """The crop files to train on (a resumed run's own) and, with --cache, the check files."""
    if not args.cache:
        return list(saved or args.data), []
    present = [str(s.path) for s in crop_cache.present("train") if not any(fnmatch(s.name, p) for p in args.without)]
    present += list(args.also)
    # a saved shard is looked for in this machine's cache when it is not where it was rendered
    data = [p if Path(p).is_file() else str(crop_cache.CACHE / Path(p).name) for p in saved] if saved is not None else present
    missing = [p for p in data if not Path(p).is_file()]
    if missing:
        raise SystemExit(f"crop shards missing: {', '.join(Path(p).stem for p in missing)} "
                         "(python -m models.board.crop_cache build renders them again, the same crops; "
                         "python -m models.board.real_blanks paints the blanks of real_blanks.npz again)")
    return data, [str(s.path) for s in crop_cache.present("check")]


def note(state: RunState, checkpoint: Path | None, line: str) -> None:
    """Print a log line, keep it in the run's state and in ``train.log`` beside the checkpoint."""
    stamped = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}"
    print(stamped, flush=True)
    state.log.append(stamped)
    if checkpoint:
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        with open(checkpoint.parent / "train.log", "a", encoding="utf-8") as log:
            log.write(stamped + "\n")


def train_epoch(model: CellNet, optimiser: torch.optim.Optimizer, schedule: torch.optim.lr_scheduler.LRScheduler,
                xt: torch.Tensor, yt: torch.Tensor, picks: np.ndarray, batch: int, gen: torch.Generator,
                distil: Distillation | None = None, smoothing: float = LABEL_SMOOTHING) -> float:
    """One pass over the crops ``picks`` (indices into ``xt``/``yt``) in batches; the mean loss
    (``train_steps`` for ``distil`` and ``smoothing``)."""
    return train_steps(model, optimiser, schedule, xt, yt, picks, batch, gen, 0, lambda step: True, distil, smoothing)[0]


def train_steps(model: CellNet, optimiser: torch.optim.Optimizer, schedule: torch.optim.lr_scheduler.LRScheduler,
                xt: torch.Tensor, yt: torch.Tensor, picks: np.ndarray, batch: int, gen: torch.Generator,
                first: int, keep: Callable[[int], bool], distil: Distillation | None = None,
                smoothing: float = LABEL_SMOOTHING) -> tuple[float, bool]:
    """The steps of an epoch from ``first`` on (``keep(steps done)`` after each: False stops the epoch);
    the mean loss of the steps run, and whether the epoch finished. With ``distil``, its loss is added;
    ``smoothing``: the cross-entropy's label smoothing."""
    steps = len(picks) // batch
    total = 0.0
    for step in range(first, steps):
        idx = torch.from_numpy(picks[step * batch : (step + 1) * batch]).to(xt.device)
        crops = augment(xt[idx].float() / 255.0, gen)
        logits = model(crops)
        loss = F.cross_entropy(logits, yt[idx], label_smoothing=smoothing)
        if distil is not None:
            loss = loss + distil.loss(logits, crops, yt[idx], idx)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        total += loss.item()
        if not keep(step + 1):
            return total / max(1, step + 1 - first), False
    return total / max(1, steps - first), True


DISTIL_TEMPERATURE = 2.0


@dataclass(frozen=True)
class Distillation:
    """A frozen ``teacher`` kept during a fine-tuning: ``distillation_loss`` weighed ``weight``, on the crops ``kept``
    marks (a bool per crop of the training tensor; None: every crop)."""

    teacher: CellNet
    weight: float
    kept: torch.Tensor | None = None

    def loss(self, logits: torch.Tensor, crops: torch.Tensor, labels: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        """The weighed loss of a batch: ``crops`` (augmented) are the training crops ``idx``, read as ``logits``."""
        among = None if self.kept is None else self.kept[idx]
        return self.weight * distillation_loss(logits, self.teacher, crops, labels, among)


def distillation_loss(logits: torch.Tensor, teacher: CellNet, crops: torch.Tensor, labels: torch.Tensor,
                      among: torch.Tensor | None = None) -> torch.Tensor:
    """How far ``logits`` (N x classes) stray from the frozen ``teacher``'s on the same crops, counted only
    where the teacher's reading is right (so it keeps what it knew, blanks and sureness, and learns the rest
    from the labels) and ``among`` is true (N bools; None: every crop): KL at temperature 2, times its square
    (Hinton et al.'s scale), averaged over the batch."""
    with torch.no_grad():
        known = teacher(crops)
        right = known.argmax(1) == labels
        if among is not None:
            right &= among
        right = right.float()
    t = DISTIL_TEMPERATURE
    kl = F.kl_div(F.log_softmax(logits / t, 1), F.log_softmax(known / t, 1), log_target=True, reduction="none").sum(1)
    return (kl * right).sum() * t * t / max(1, len(labels))


def measure_checks(model: CellNet, checks: dict[str, tuple[np.ndarray, np.ndarray]], device: torch.device) -> str:
    """``measure`` on each check set (crops N x 40 x 40 x 3 uint8, classes), named, in one line."""
    return " ".join(f"{name} {measure(model, torch.from_numpy(x).permute(0, 3, 1, 2).to(device), torch.from_numpy(y).to(device))}"
                    for name, (x, y) in checks.items())  # fmt: skip


def measure(model: CellNet, x: torch.Tensor, y: torch.Tensor) -> str:
    """Accuracy, letters right among Spanish letter tiles, tile/empty errors and blanks found, in one word."""
    model.eval()
    with torch.no_grad():
        guess = torch.cat([model(x[i : i + 1024].float() / 255.0).argmax(1) for i in range(0, len(y), 1024)])
    model.train()
    letters = (y >= 1) & (y <= len(LETTERS))
    empty, blank, covered = INDEX["."], INDEX["?"], INDEX["#"]
    known = y != covered
    tile_empty = int(((guess == empty) != (y == empty))[known & (guess != covered)].sum())
    blanks = y == blank
    return (f"acc {float((guess == y).float().mean()):.4f} letters {float((guess == y)[letters].float().mean()):.4f} "
            f"tile/empty {tile_empty} blanks {int((guess == y)[blanks].sum())}/{int(blanks.sum())}")


@torch.no_grad()
def evaluate(model: CellNet, x: torch.Tensor, y: torch.Tensor) -> float:
    model.eval()
    correct = 0
    for i in range(0, len(y), 1024):
        logits = model(x[i : i + 1024].float() / 255.0)
        correct += int((logits.argmax(1) == y[i : i + 1024]).sum())
    return correct / max(1, len(y))


if __name__ == "__main__":
    main()
