//! The browser's side of the sandbox (wasm32 only): the page's clock, what the app reports to
//! the page (steps, frame times), upload and download of scene files, local storage, and
//! the console for panics. Each function is `web/impulse.js`'s of the same name; strings
//! cross as `sapp_jsutils` objects.

use sapp_jsutils::JsObject;

extern "C" {
    fn impulse_now() -> f64;
    fn impulse_report(
        steps: f64,
        paused: u32,
        frame_ms: f64,
        cpu_ms: f64,
        physics_ms: f64,
        bodies: u32,
    );
    fn impulse_console_error(message: JsObject);
    fn impulse_download(name: JsObject, text: JsObject);
    fn impulse_pick_file();
    fn impulse_take_upload_name() -> JsObject;
    fn impulse_take_upload_text() -> JsObject;
    fn impulse_storage_set(key: JsObject, value: JsObject);
    fn impulse_storage_get(key: JsObject) -> JsObject;
}

/// The local storage key of the last edited scene's text.
const LAST_SCENE: &str = "impulse.last_scene";
/// The local storage key of the last edited scene's name.
const LAST_NAME: &str = "impulse.last_scene_name";

/// The version miniquad's loader asks every plugin's Rust side for (`web/impulse.js` is
/// version 1); without it the loader reports the plugin as unused.
#[no_mangle]
pub extern "C" fn impulse_crate_version() -> u32 {
    1
}

/// True for JavaScript's null or undefined (sapp_jsutils gives null as undefined).
fn absent(object: &JsObject) -> bool {
    object.is_nil() || object.is_undefined()
}

/// Seconds since the page loaded (`performance.now()`).
pub fn now() -> f64 {
    // SAFETY: a plain import from web/impulse.js, with no arguments.
    unsafe { impulse_now() }
}

/// Makes panics show in the browser's console, with their message and place, and gives
/// the engine the page's clock.
pub fn install() {
    crate::physics::clock::set_source(now);
    std::panic::set_hook(Box::new(|info| {
        console_error(&format!("impulse panicked: {info}"));
    }));
}

/// Writes `message` to the browser's console as an error.
pub fn console_error(message: &str) {
    // SAFETY: the object is made here and consumed by the import.
    unsafe { impulse_console_error(JsObject::string(message)) }
}

/// Tells the page what the last frame did: `window.impulseSteps`, `window.impulsePaused`,
/// `window.impulseStats` (`ms`: the smoothed frame time, the frame's own CPU time and the
/// last step's physics time; the bodies).
pub fn report(steps: u64, paused: bool, ms: [f32; 3], bodies: usize) {
    let [frame, cpu, physics] = ms.map(f64::from);
    // SAFETY: a plain import taking numbers.
    unsafe {
        impulse_report(
            steps as f64,
            u32::from(paused),
            frame,
            cpu,
            physics,
            bodies as u32,
        )
    }
}

/// Offers `text` as a file named `name` to download.
pub fn download(name: &str, text: &str) {
    // SAFETY: both objects are made here and consumed by the import.
    unsafe { impulse_download(JsObject::string(name), JsObject::string(text)) }
}

/// Opens the browser's file picker for a `.ron` file; [`take_upload`] returns it once read.
pub fn pick_file() {
    // SAFETY: a plain import with no arguments.
    unsafe { impulse_pick_file() }
}

/// The file picked with [`pick_file`], once: its name and text.
pub fn take_upload() -> Option<(String, String)> {
    // SAFETY: plain imports returning objects this function owns.
    let (name, text) = unsafe { (impulse_take_upload_name(), impulse_take_upload_text()) };
    if absent(&name) || absent(&text) {
        return None;
    }
    let (mut n, mut t) = (String::new(), String::new());
    name.to_string(&mut n);
    text.to_string(&mut t);
    Some((n, t))
}

/// Keeps the scene `name` with `text` as the last edited one.
pub fn store_last_scene(name: &str, text: &str) {
    // SAFETY: the objects are made here and consumed by the import.
    // The text first: if the storage is full, the name stays paired with its old text.
    unsafe {
        impulse_storage_set(JsObject::string(LAST_SCENE), JsObject::string(text));
        impulse_storage_set(JsObject::string(LAST_NAME), JsObject::string(name));
    }
}

/// The last edited scene kept by [`store_last_scene`]: its name and text.
pub fn last_scene() -> Option<(String, String)> {
    let get = |key: &str| {
        // SAFETY: the key is made here and consumed by the import, which returns an object
        // this closure owns.
        let value = unsafe { impulse_storage_get(JsObject::string(key)) };
        (!absent(&value)).then(|| {
            let mut s = String::new();
            value.to_string(&mut s);
            s
        })
    };
    Some((get(LAST_NAME)?, get(LAST_SCENE)?))
}

/// The value of `?scene=NAME` in the page's address, if given.
pub fn scene_parameter() -> Option<String> {
    quad_url::get_program_parameters()
        .iter()
        .filter_map(|p| quad_url::easy_parse(p))
        .find_map(|(key, value)| (key == "scene").then_some(value).flatten())
        .map(|v| v.trim_matches('"').to_string())
}
