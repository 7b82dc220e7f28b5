"""The sandbox's limits and the errors a run can end in (parent side; standard library only)."""

from dataclasses import dataclass, field

# The child's whole environment: nothing of the parent's (its secrets included). One BLAS thread: the
# learner's arrays are small and the limits stay predictable.
CHILD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "LC_ALL": "C.UTF-8"}
DEFAULT_SECONDS = 10.0  # what `kata check --timeout` and `kata grade --timeout` give when not told
CPU_GRACE_SECONDS = 2  # the child's CPU limit lies past the wall clock's, so the parent's timeout speaks first
DISK_BYTES = 2**20  # the child's tmpfs, beyond the files it is given: a kata needs no disk


@dataclass
class Limits:
    seconds: float = DEFAULT_SECONDS  # wall clock for the whole run, import included
    memory_mb: int = 1024  # on top of what Python and NumPy take
    output_bytes: int = 1_000_000  # what the learner may print
    message_bytes: int = 64 * 2**20  # the most the parent reads of one answer: far above any honest result
    strict: bool = False  # refuse to run the learner's code unless every wall of isolation.FULL stands
    cpu_seconds: int = 0  # the child's CPU limit (SIGXCPU); 0: past the wall clock's, so the timeout speaks first

    @property
    def cpu_limit(self):
        return self.cpu_seconds or int(self.seconds) + CPU_GRACE_SECONDS


class SandboxError(Exception):
    """The learner's process could not give an answer."""


class Timeout(SandboxError):
    def __init__(self, message, frames=()):
        super().__init__(message)
        self.frames = list(frames)  # [line, function, code]: where the learner's code was when stopped


OUTPUT_LIMIT = "OutputLimit"  # worker.OUTPUT_LIMIT, without importing NumPy here


class Died(SandboxError):
    pass


class FigureUnreadable(Died):
    """The kernel's figure for a cost check could not be read: the check fails closed, never on the child's word."""


class HostError(Exception):
    """The checker's own machine failed (its disk is full): no learner's doing, so never a learner's failure."""


class Unisolated(SandboxError):
    """Strict mode, and the child could not wall itself in: the learner's code was never run."""



@dataclass
class LearnerError(Exception):
    """The learner's code raised: its type, message and the lines of the learner's file it ran through."""

    type: str
    message: str
    frames: list = field(default_factory=list)  # [line, function, code]

    def __str__(self):
        """One line, whatever the learner's code put in its exception: a message quoting it cannot add lines of
        its own (a newline shows as <U+000A>, as every hidden character does)."""
        from checker.sandbox.chars import visible

        text = f"{self.type}: {self.message}" if self.message else self.type
        return visible(text)

    @property
    def not_implemented(self):
        return self.type == "NotImplementedError"

