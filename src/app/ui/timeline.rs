//! The rewind timeline under the 3D view and its Record button.

use super::*;

/// The rewind timeline: a slider over the recorded steps, step back / forward, back to the
/// present, and what the history holds.
pub(super) fn timeline(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
    let history = &sandbox.timeline;
    if !history.enabled() {
        ui.label(RichText::new("Timeline: not recorded during the stress test").weak());
        return;
    }
    let (oldest, head) = (history.oldest(), history.head());
    let now = sandbox.world.step_count();
    let dt = sandbox.timestep as f64;
    let status = format!(
        "{:.1} s of {:.0} s kept · {:.1} MB",
        (head - oldest) as f64 * dt,
        super::super::timeline::HISTORY_SECONDS,
        history.bytes() as f64 / (1024.0 * 1024.0)
    );
    ui.horizontal(|ui| {
        if ui
            .add_enabled(now > oldest, egui::Button::new("◀").small())
            .on_hover_text("One step back  [B]")
            .clicked()
        {
            sandbox.scrub_to(now.saturating_sub(1));
        }
        if ui
            .add_enabled(now < head, egui::Button::new("▶").small())
            .on_hover_text("One step forward along the recording  [N]")
            .clicked()
        {
            sandbox.playing = false;
            sandbox.step_once();
        }
        // A browser has no folder to write the GIF to (and no thread to encode it on).
        #[cfg(not(target_arch = "wasm32"))]
        record_button(ui, sandbox, view);
        #[cfg(target_arch = "wasm32")]
        let _ = &view;
        let mut step = now;
        let status_width = 260.0;
        ui.spacing_mut().slider_width = (ui.available_width() - status_width).max(60.0);
        let slider = egui::Slider::new(&mut step, oldest..=head.max(oldest + 1))
            .show_value(false)
            .clamping(egui::SliderClamping::Always);
        if ui
            .add_enabled(head > oldest, slider)
            .on_hover_text(
                "Drag to rewind: Play replays the recording; an edit or a \
                 grab in the past starts a new branch from there",
            )
            .changed()
        {
            sandbox.scrub_to(step);
        }
        let behind = head.saturating_sub(now);
        if behind > 0 {
            if ui
                .button(format!("−{:.2} s  ⏭", behind as f64 * dt))
                .on_hover_text("Back to the present")
                .clicked()
            {
                sandbox.scrub_to(head);
            }
        } else {
            ui.label(RichText::new("live").color(Color32::from_rgb(60, 150, 80)));
        }
        ui.label(RichText::new(status).small().weak());
    });
}

/// How much of the present a Record pressed at the present takes in, s.
#[cfg(not(target_arch = "wasm32"))]
pub(super) const RECORD_SECONDS: f64 = 5.0;

/// Record: replays the timeline from the step shown (from [`RECORD_SECONDS`] back when at
/// the present) to its end, one step a frame, and writes the view as an animated GIF in
/// the save folder; while it runs, Stop writes what it has.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn record_button(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
    if let Some(recording) = &view.recording {
        let text = format!("Stop ({} pictures)", recording.frames());
        if ui
            .button(text)
            .on_hover_text("Stop recording and write what is recorded")
            .clicked()
        {
            super::super::finish_recording(view, sandbox);
        }
        return;
    }
    let history = &sandbox.timeline;
    let (oldest, head, now) = (history.oldest(), history.head(), sandbox.world.step_count());
    let back = (RECORD_SECONDS / sandbox.timestep as f64) as u64;
    let start = if now < head {
        now
    } else {
        head.saturating_sub(back).max(oldest)
    };
    let dir = save_dir();
    let button = ui
        .add_enabled(
            head > start && view.writing.is_none(),
            egui::Button::new("Record"),
        )
        .on_hover_text(format!(
            "Replay from the step shown to the end of the recording (the last {RECORD_SECONDS} s \
             when at the present) and save the view as an animated GIF in {}",
            dir.display()
        ));
    mark("record", &button);
    if button.clicked() {
        // Made the first time it is needed; a failure shows as the recording's.
        let _ = std::fs::create_dir_all(&dir);
        let stem = sandbox.source.stem();
        let path = dir.join(format!("{stem}-steps-{start}-{head}.gif"));
        sandbox.scrub_to(start);
        view.recording = Some(super::super::record::Recording::new(
            path,
            sandbox.timestep,
            head,
        ));
    }
}
