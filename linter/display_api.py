"""What gpulint knows about the libraries that show or log values (plots, images, loggers):
a copy to the host made for them is the point of the code, not a wait to remove. Data only;
the transfer rules read it (`rules/transfers/_host_copies.py`)."""

from __future__ import annotations

#: Libraries whose every call draws (`plt.plot`, `sns.histplot`).
PLOTTING_MODULES = ("matplotlib.", "seaborn.")

#: Calls that make an image, a histogram or a figure from host values, to show or log.
DISPLAY_CALLS = frozenset(
    {
        "PIL.Image.fromarray",
        "wandb.Image",
        "wandb.Histogram",
        "wandb.Video",
        "wandb.Audio",
        "torchvision.utils.save_image",
        "IPython.display.display",
    }
)

#: Teaching libraries' plotting helpers (`d2l.show_images`), by the last part of their name.
TEACHING_PLOT_HELPERS = ("d2l.", frozenset({"show_images", "show_heatmaps", "show_bboxes", "plot", "show_trace_2d"}))

#: TensorBoard's `SummaryWriter` methods that log an image, a histogram or a figure.
SUMMARY_WRITER_METHODS = frozenset(
    {
        "add_image",
        "add_images",
        "add_image_with_boxes",
        "add_histogram",
        "add_figure",
        "add_video",
        "add_audio",
        "add_mesh",
        "add_embedding",
        "add_pr_curve",
    }
)

#: TensorBoard's writers (torch's and tensorboardX's), by qualified name.
SUMMARY_WRITERS = frozenset(
    {
        "torch.utils.tensorboard.SummaryWriter",
        "torch.utils.tensorboard.writer.SummaryWriter",
        "tensorboardX.SummaryWriter",
        "tensorboardX.writer.SummaryWriter",
    }
)

#: The library name of a writer's `Ty` (`Kind.LOGGER`).
TENSORBOARD = "tensorboard"
