// The page's side of the sandbox: what the wasm build imports beside miniquad's gl.js,
// sapp_jsutils.js and quad-url.js (src/app/web.rs declares each function). Strings cross as
// sapp_jsutils objects.
"use strict";

// What the app reports, for the page and for tests: steps taken, paused or not, the
// smoothed frame time, the frame's own CPU time and the last step's physics time (ms), and
// the bodies.
window.impulseSteps = 0;
window.impulsePaused = false;
window.impulseStats = { frameMs: 0, cpuMs: 0, physicsMs: 0, bodies: 0 };

// A file picked with "Open file…", until the app takes it.
var impulse_upload = null;

// The page's "Loading…" line goes at the app's first frame; if the app fails to start (no
// WebGL, a panic) it says so there instead of leaving a blank page.
function impulse_status(text) {
    var status = document.getElementById("status");
    if (status) {
        status.textContent = text;
        status.style.display = text ? "block" : "none";
    }
}
window.addEventListener("error", function (event) {
    if (window.impulseSteps === 0) {
        impulse_status("Impulse could not start: " + event.message);
    }
});

function impulse_register(importObject) {
    importObject.env.impulse_now = function () {
        return performance.now() / 1000.0;
    };
    importObject.env.impulse_report = function (steps, paused, frame_ms, cpu_ms, physics_ms, bodies) {
        if (window.impulseReported !== true) {
            window.impulseReported = true;
            impulse_status("");
        }
        window.impulseSteps = steps;
        window.impulsePaused = paused != 0;
        window.impulseStats = { frameMs: frame_ms, cpuMs: cpu_ms, physicsMs: physics_ms, bodies: bodies };
    };
    importObject.env.impulse_console_error = function (message) {
        var text = consume_js_object(message);
        console.error(text);
        impulse_status(text);
    };
    importObject.env.impulse_download = function (name, text) {
        var blob = new Blob([consume_js_object(text)], { type: "text/plain" });
        var link = document.createElement("a");
        link.href = URL.createObjectURL(blob);
        link.download = consume_js_object(name);
        document.body.appendChild(link);
        link.click();
        link.remove();
        setTimeout(function () { URL.revokeObjectURL(link.href); }, 10000);
    };
    importObject.env.impulse_pick_file = function () {
        var input = document.createElement("input");
        input.type = "file";
        input.accept = ".ron";
        input.onchange = function () {
            var file = input.files[0];
            if (!file) {
                return;
            }
            file.text().then(function (text) {
                impulse_upload = { name: file.name, text: text };
            });
        };
        input.click();
    };
    // The picked file's name and text, once (null while there is none).
    importObject.env.impulse_take_upload_name = function () {
        return js_object(impulse_upload ? impulse_upload.name : null);
    };
    importObject.env.impulse_take_upload_text = function () {
        var text = impulse_upload ? impulse_upload.text : null;
        impulse_upload = null;
        return js_object(text);
    };
    // The arguments are consumed before storage is touched, which may throw where it is
    // blocked, so they never stay behind in sapp_jsutils' table.
    importObject.env.impulse_storage_set = function (key, value) {
        var k = consume_js_object(key);
        var v = consume_js_object(value);
        try {
            localStorage.setItem(k, v);
        } catch (e) {
            console.warn("local storage: " + e);
        }
    };
    importObject.env.impulse_storage_get = function (key) {
        var k = consume_js_object(key);
        var value = null;
        try {
            value = localStorage.getItem(k);
        } catch (e) {
            console.warn("local storage: " + e);
        }
        return js_object(value);
    };
}

miniquad_add_plugin({ register_plugin: impulse_register, version: 1, name: "impulse" });
