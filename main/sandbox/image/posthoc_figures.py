# Posthoc's matplotlib backend (MPLBACKEND=module://posthoc_figures, set in container-policy.ts). The
# sandbox has no display: plt.show() writes each open figure as a PNG into the action's figures folder
# (a tmpfs of the container, emptied by the action runner before each action), and at the end of the
# action every figure still open that was neither shown nor saved with savefig goes there too. After the
# action the runner hands the folder's files to the host (main/sandbox/image/posthoc_init.py, frame G),
# which checks them again and stores them with the action (main/effects/figures/).
#
# Figures are written as <time>-<pid>-<n>.png through a temporary name and a rename, so the runner never
# reads half a file from an action that ended normally. Anything here is only a convenience for honest
# code: the runner and the host enforce every limit themselves.
import atexit
import io
import os
import sys
import time

from matplotlib._pylab_helpers import Gcf
from matplotlib.backend_bases import FigureManagerBase
from matplotlib.backends.backend_agg import FigureCanvasAgg

FIGURES_DIR = '/run/posthoc-figures'
# The host keeps at most this many figures per action; more are not even written.
MAX_FIGURES = 20
_count = [0]


class FigureCanvas(FigureCanvasAgg):
    def print_figure(self, *args, **kwargs):
        # savefig: the figure reached a file of the action's, so it is not handed over again at exit.
        result = super().print_figure(*args, **kwargs)
        self.figure._posthoc_saved = True
        return result


FigureManager = FigureManagerBase


def _hand_over(figure):
    if _count[0] >= MAX_FIGURES:
        return
    buffer = io.BytesIO()
    # The base class's savefig, so handing over does not count as the action saving it.
    FigureCanvasAgg.print_figure(figure.canvas, buffer, format='png')
    _count[0] += 1
    name = '%d-%d-%d' % (time.time_ns(), os.getpid(), _count[0])
    tmp = os.path.join(FIGURES_DIR, '.' + name + '.tmp')
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        with os.fdopen(fd, 'wb') as f:
            f.write(buffer.getvalue())
        os.rename(tmp, os.path.join(FIGURES_DIR, name + '.png'))
    except OSError as e:
        print('posthoc: could not hand over a figure: %s' % e, file=sys.stderr)


def show(*args, **kwargs):
    # As a notebook does: every open figure is shown once, then closed.
    for manager in Gcf.get_all_fig_managers():
        _hand_over(manager.canvas.figure)
        manager.canvas.figure._posthoc_saved = True
    Gcf.destroy_all()


def _at_exit():
    for manager in Gcf.get_all_fig_managers():
        figure = manager.canvas.figure
        if not getattr(figure, '_posthoc_saved', False):
            _hand_over(figure)


# pyplot registered Gcf.destroy_all at exit before it loaded this backend; handlers run last-in first-out,
# so this one sees the figures still open.
atexit.register(_at_exit)
