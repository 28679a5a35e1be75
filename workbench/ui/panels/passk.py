from ...analyses import passk
from .base import AnalysisPanel, Field
from .engine_field import engine_field

FORMS = (("counts", "per-task counts (n, c)"), ("attempts", "per-attempt rows (task, success)"))


class PassKPanel(AnalysisPanel):
    CHARTS = ("PassKChart",)
    module = passk
    FIELDS = (
        Field("form", "Input", "choice", "How the file records attempts.", choices=FORMS),
        Field("task", "Task", "column", "Task id.", roles=("task",), optional=False),
        Field("n", "Attempts n", "column", "Attempts per task.", roles=("n",), forms=("counts",), optional=False),
        Field("correct", "Passes c", "column", "Passing attempts per task.", roles=("correct",),
              forms=("counts",), optional=False),
        Field("success", "Success", "column", "0/1 per attempt.", roles=("success",), forms=("attempts",),
              optional=False),
        Field("system", "System", "column", "Optional: per system.", roles=("system",)),
        Field("ks", "k values", "cutoffs",
              "pass@k = 1 - C(n-c,k)/C(n,k), pass^k = C(c,k)/C(n,k); tasks with n < k are left out."),
        engine_field("the attempts and passes per task"),
    )

    def form_for_roles(self, roles):
        return "counts" if "n" in roles.values() else "attempts"

    def form_of(self, options):
        return "attempts" if options.success else "counts"
