//! Scene files in a browser, which has no disk: Open file… uploads a `.ron` file through
//! the page, Download saves the world as one, and the page's local storage keeps the last
//! edited scene (`src/app/web.rs`).

use super::*;

/// Open file… (the browser's file picker; the scene loads when the file has been read) and
/// Download (the world as it is now, as a `.ron` file).
pub(super) fn file_buttons(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
    ui.horizontal(|ui| {
        if ui
            .button("Open file…")
            .on_hover_text("Load a .ron scene file from your computer")
            .clicked()
        {
            crate::app::web::pick_file();
        }
        if ui
            .button("Download")
            .on_hover_text("Save the world as it is now as a .ron file")
            .clicked()
        {
            match sandbox.scene_text(&view.camera.to_desc()) {
                Ok(text) => {
                    let name = format!("{}-saved.ron", sandbox.source.stem());
                    crate::app::web::download(&name, &text);
                }
                Err(e) => sandbox.error = Some(e),
            }
        }
    });
    ui.label(
        RichText::new(
            "This browser keeps the last scene you edited: reopening the page brings it \
             back.",
        )
        .small()
        .weak(),
    );
}
