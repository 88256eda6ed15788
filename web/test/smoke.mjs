// The web build in a real browser: serves target/web/ on loopback, opens it in headless
// Chromium (Debian's /usr/bin/chromium, WebGL through SwiftShader) and checks that
//  - nothing is written to the console as an error and no exception escapes (a Rust panic
//    is printed there by src/app/web.rs);
//  - the app steps (window.impulseSteps grows);
//  - the 3D view is drawn (most of its pixels differ from the clear colour) and so is the
//    panel (its dark background with lighter text on the left);
//  - the canvas follows the page's size, Space pauses (the step count stops), Open file…
//    loads an uploaded scene, Download saves the world, the page keeps the last scene, and
//    ?scene=NAME opens that shipped scene (pyramid and pile both step).
// Prints the frame and physics times the page measured (docs/web.md quotes them).
//
//   node web/test/smoke.mjs [target/web] [--screenshot OUT.png]

import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";

const args = process.argv.slice(2);
const shotAt = args.indexOf("--screenshot");
const screenshotPath = shotAt >= 0 ? args[shotAt + 1] : null;
const root = path.resolve(args.find((a, i) => !a.startsWith("--") && i !== shotAt + 1) ?? "target/web");

// What the upload test gives the page: a ground and two named boxes.
const TWO_BOXES = `Scene(bodies: [
    (name: "ground", kind: Static, colliders: [(shape: Plane(normal: (0.0, 1.0, 0.0)))]),
    (name: "left box", position: (-1.0, 0.5, 0.0), colliders: [(shape: Cuboid(half_extents: (0.5, 0.5, 0.5)))]),
    (name: "right box", position: (1.0, 0.5, 0.0), colliders: [(shape: Cuboid(half_extents: (0.5, 0.5, 0.5)))]),
])`;

const types = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
};

// A static file server on 127.0.0.1 only.
const server = http.createServer((request, response) => {
    const name = decodeURIComponent(new URL(request.url, "http://localhost").pathname);
    const file = path.join(root, name === "/" ? "index.html" : name);
    if (!file.startsWith(root) || !fs.existsSync(file)) {
        response.writeHead(404);
        response.end();
        return;
    }
    response.writeHead(200, { "Content-Type": types[path.extname(file)] ?? "application/octet-stream" });
    fs.createReadStream(file).pipe(response);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [
        "--no-sandbox",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--use-angle=swiftshader",
        "--enable-unsafe-swiftshader",
    ],
});

const failures = [];
function check(ok, message) {
    console.log(`${ok ? "ok  " : "FAIL"} ${message}`);
    if (!ok) {
        failures.push(message);
    }
}

async function open(query) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    const errors = [];
    page.on("console", (m) => {
        if (m.type() === "error") {
            errors.push(m.text());
        }
    });
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${base}/index.html${query}`);
    return { page, errors };
}

// The page's frame and physics times, averaged over two seconds.
async function timings(page) {
    const samples = [];
    for (let i = 0; i < 20; i += 1) {
        await page.waitForTimeout(100);
        samples.push(await page.evaluate(() => window.impulseStats));
    }
    const mean = (key) => samples.reduce((s, x) => s + x[key], 0) / samples.length;
    return `frame ${mean("frameMs").toFixed(1)} ms (of which the app's own CPU work ${mean("cpuMs").toFixed(1)} ms), physics ${mean("physicsMs").toFixed(2)} ms per step, ${samples.at(-1).bodies} bodies`;
}

// Clicks the app's button at (x, y) as a person does, the pointer resting there first and
// the button held 50 ms (so the press and the release reach the app in frames of their
// own), and returns the page event `name` the click causes. A click in the frame where
// egui lays the panel out again (just after the viewport is resized) can miss the button,
// so it clicks up to three times, each miss logged; the event never coming fails the run.
async function clickFor(page, x, y, name) {
    for (let attempt = 1; ; attempt += 1) {
        await page.mouse.move(x, y);
        await page.waitForTimeout(200);
        try {
            const [event] = await Promise.all([
                page.waitForEvent(name, { timeout: 10000 }),
                page.mouse.click(x, y, { delay: 50 }),
            ]);
            return event;
        } catch (e) {
            if (attempt === 3) {
                throw e;
            }
            console.log(`     (no ${name} after click ${attempt} at ${x}, ${y}: clicking again)`);
        }
    }
}

async function waitForSteps(page, steps, seconds) {
    try {
        await page.waitForFunction((n) => window.impulseSteps >= n, steps, { timeout: seconds * 1000 });
        return true;
    } catch {
        return false;
    }
}

// What share of the screenshot's pixels in a rectangle are far from `colour`, and how many
// are brighter than `bright` (text), decoded by the page itself.
async function pixels(page, png, rect, colour, bright) {
    return page.evaluate(
        async ({ data, rect, colour, bright }) => {
            const image = new Image();
            image.src = "data:image/png;base64," + data;
            await image.decode();
            const canvas = document.createElement("canvas");
            canvas.width = image.width;
            canvas.height = image.height;
            const context = canvas.getContext("2d");
            context.drawImage(image, 0, 0);
            const { data: rgba } = context.getImageData(rect[0], rect[1], rect[2], rect[3]);
            let far = 0;
            let light = 0;
            const n = rgba.length / 4;
            for (let i = 0; i < rgba.length; i += 4) {
                const d = Math.abs(rgba[i] - colour[0]) + Math.abs(rgba[i + 1] - colour[1]) + Math.abs(rgba[i + 2] - colour[2]);
                if (d > 30) {
                    far += 1;
                }
                if (rgba[i] > bright && rgba[i + 1] > bright && rgba[i + 2] > bright) {
                    light += 1;
                }
            }
            return { far: far / n, light: light / n };
        },
        { data: png.toString("base64"), rect, colour, bright },
    );
}

// The default scene.
{
    const { page, errors } = await open("");
    const stepped = await waitForSteps(page, 60, 120);
    check(stepped, `the default scene steps (window.impulseSteps = ${await page.evaluate(() => window.impulseSteps)})`);
    const status = await page.evaluate(() => getComputedStyle(document.getElementById("status")).display);
    check(status === "none", `the page's "Loading…" line is gone once the app runs (display: ${status})`);
    console.log(`default: ${await timings(page)}`);

    const png = await page.screenshot();
    if (screenshotPath) {
        fs.writeFileSync(screenshotPath, png);
    }
    // The 3D view between the panels: the sky is the clear colour (0.70, 0.78, 0.88); the
    // ground and the bodies are not.
    const view = await pixels(page, png, [400, 150, 600, 600], [179, 199, 224], 250);
    check(view.far > 0.3, `the 3D view is drawn (${(100 * view.far).toFixed(0)} % of its pixels differ from the sky)`);
    // The left panel: egui's dark background, with light text.
    const panel = await pixels(page, png, [0, 0, 250, 860], [27, 27, 27], 150);
    check(panel.far < 0.5 && panel.light > 0.001, `the panel is drawn (${(100 * (1 - panel.far)).toFixed(0)} % dark, ${(100 * panel.light).toFixed(1)} % light text)`);

    // The canvas follows the page's size.
    await page.setViewportSize({ width: 1000, height: 700 });
    await page.waitForTimeout(500);
    const size = await page.evaluate(() => [document.querySelector("#glcanvas").width, document.querySelector("#glcanvas").height]);
    check(size[0] === 1000 && size[1] === 700, `the canvas follows the page to 1000 × 700 (${size[0]} × ${size[1]})`);

    // Space pauses: the count stops.
    await page.focus("#glcanvas");
    await page.keyboard.press("Space");
    await page.waitForTimeout(300);
    const paused = await page.evaluate(() => [window.impulseSteps, window.impulsePaused]);
    await page.waitForTimeout(1000);
    const later = await page.evaluate(() => window.impulseSteps);
    check(paused[1] && later === paused[0], `Space pauses (steps ${paused[0]} then ${later}, paused ${paused[1]})`);

    // Open file…: the browser's picker gives the app a scene of two boxes on a ground. The
    // buttons sit under the scene list of the default layout at 1400 × 860, and stay there
    // when the uploaded scene loads (a scene from outside the list closes no group).
    await page.setViewportSize({ width: 1400, height: 860 });
    await page.waitForTimeout(500);
    const chooser = await clickFor(page, 60, 576, "filechooser");
    await chooser.setFiles({ name: "two-boxes.ron", mimeType: "text/plain", buffer: Buffer.from(TWO_BOXES) });
    let loaded = true;
    try {
        await page.waitForFunction(() => window.impulseStats.bodies === 3, null, { timeout: 10000 });
    } catch {
        loaded = false;
    }
    check(loaded, `Open file… loads the uploaded scene (${await page.evaluate(() => window.impulseStats.bodies)} bodies)`);

    // Download: the world as a scene file, with the uploaded scene's bodies in it.
    const download = await clickFor(page, 137, 576, "download");
    const saved = fs.readFileSync(await download.path(), "utf8");
    check(
        download.suggestedFilename() === "two-boxes-saved.ron" && saved.includes('"left box"') && saved.includes('"right box"'),
        `Download saves ${download.suggestedFilename()} with both boxes (${saved.length} bytes)`,
    );

    // The page kept the last opened scene: reopened without ?scene, it comes back.
    await page.waitForTimeout(1500);
    await page.reload();
    await waitForSteps(page, 1, 60);
    await page.waitForTimeout(500);
    const restored = await page.evaluate(() => window.impulseStats.bodies);
    check(restored === 3, `reopening the page brings back the last scene (${restored} bodies)`);
    check(errors.length === 0, `no console errors on the default scene${errors.length ? ": " + errors.join(" | ") : ""}`);
    await page.close();
}

// ?scene=pyramid opens the pyramid: as many bodies as the desktop build makes of it
// (PYRAMID_BODIES, from `impulse run scenes/pyramid.ron`), not the default scene's.
{
    const { page, errors } = await open("?scene=pyramid");
    const stepped = await waitForSteps(page, 10, 120);
    const bodies = await page.evaluate(() => window.impulseStats.bodies);
    const expected = Number(process.env.PYRAMID_BODIES);
    check(stepped, `?scene=pyramid steps`);
    check(bodies === expected, `?scene=pyramid has ${bodies} bodies (the desktop build: ${expected})`);
    check(errors.length === 0, `no console errors on the pyramid${errors.length ? ": " + errors.join(" | ") : ""}`);
    console.log(`pyramid: ${await timings(page)}`);
    await page.close();
}

// ?scene=pile: it runs too.
{
    const { page, errors } = await open("?scene=pile");
    check(await waitForSteps(page, 10, 120), `?scene=pile steps`);
    check(errors.length === 0, `no console errors on the pile${errors.length ? ": " + errors.join(" | ") : ""}`);
    console.log(`pile: ${await timings(page)}`);
    await page.close();
}

await browser.close();
server.close();
if (failures.length > 0) {
    console.log(`${failures.length} check(s) failed`);
    process.exit(1);
}
console.log("web build: every check passed");
