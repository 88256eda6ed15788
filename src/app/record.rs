//! Recording the 3D view as an animated GIF: one picture every few steps, taken as each
//! step is drawn, so the result shows simulated time at its own pace whatever the frame
//! rate was (the timeline's Record replays its recording one step per frame;
//! `--frames N --record OUT.gif` steps once a frame anyway).

use std::path::{Path, PathBuf};

use macroquad::prelude::get_screen_data;

/// The slowest a GIF frame is shown for is what viewers honour reliably: 1/30 s would do,
/// but browsers show delays under 2 cs at 10 cs, so frames are at least 3 cs apart.
const MIN_FRAME_DELAY: f64 = 0.03;

/// Views wider than this are halved (a box filter): a full 854 px view makes a GIF several
/// times the size for little gain.
const MAX_WIDTH: usize = 640;

/// NeuQuant's speed for the palette of each frame (1 best, 30 fastest): 10 is its own
/// default trade.
const QUANTIZE_SPEED: i32 = 10;

/// A recording being made.
pub struct Recording {
    /// Where it goes.
    pub path: PathBuf,
    /// The last step it takes in.
    pub end: u64,
    /// Steps per picture.
    skip: u64,
    /// How long each picture shows, cs.
    delay: u16,
    /// The last step captured (a paused frame is not captured twice).
    last: Option<u64>,
    /// The pictures: width, height, RGBA rows from the top.
    frames: Vec<(usize, usize, Vec<u8>)>,
}

impl Recording {
    /// A recording to `path` of steps of `timestep` seconds, up to step `end`.
    pub fn new(path: PathBuf, timestep: f32, end: u64) -> Self {
        let skip = (MIN_FRAME_DELAY / timestep as f64).ceil().max(1.0) as u64;
        let delay = (skip as f64 * timestep as f64 * 100.0).round().max(2.0) as u16;
        Self {
            path,
            end,
            skip,
            delay,
            last: None,
            frames: Vec::new(),
        }
    }

    /// Pictures taken so far.
    pub fn frames(&self) -> usize {
        self.frames.len()
    }

    /// Takes the 3D view of the frame just drawn (before the panels), when `step` is one to
    /// keep. `viewport`: the view's left, bottom, width and height in window pixels, as
    /// OpenGL counts them (from the bottom).
    pub fn capture(&mut self, step: u64, viewport: (i32, i32, i32, i32)) {
        if self.last == Some(step) || !step.is_multiple_of(self.skip) {
            return;
        }
        self.last = Some(step);
        let screen = get_screen_data();
        let (w, h) = (screen.width as usize, screen.height as usize);
        let (left, bottom, width, height) = viewport;
        let left = (left.max(0) as usize).min(w);
        let bottom = (bottom.max(0) as usize).min(h);
        let width = (width.max(0) as usize).min(w - left);
        let height = (height.max(0) as usize).min(h - bottom);
        if width == 0 || height == 0 {
            return;
        }
        // The screen's rows run from the bottom; a GIF's from the top.
        let mut rgba = Vec::with_capacity(width * height * 4);
        for row in (bottom..bottom + height).rev() {
            let start = (row * w + left) * 4;
            rgba.extend_from_slice(&screen.bytes[start..start + width * 4]);
        }
        self.frames.push(shrink(width, height, rgba));
    }

    /// Writes the GIF; the number of pictures and bytes written.
    pub fn write(self) -> Result<(usize, u64), String> {
        write_gif(&self.path, self.frames, self.delay)
    }
}

/// Halves a picture wider than [`MAX_WIDTH`] (each pixel the mean of a 2 × 2 block) until it
/// is not.
fn shrink(mut width: usize, mut height: usize, mut rgba: Vec<u8>) -> (usize, usize, Vec<u8>) {
    while width > MAX_WIDTH && height >= 2 {
        let (w, h) = (width / 2, height / 2);
        let mut half = Vec::with_capacity(w * h * 4);
        for y in 0..h {
            for x in 0..w {
                for c in 0..4 {
                    let at = |dx: usize, dy: usize| {
                        rgba[((2 * y + dy) * width + 2 * x + dx) * 4 + c] as u32
                    };
                    half.push(((at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1) + 2) / 4) as u8);
                }
            }
        }
        (width, height, rgba) = (w, h, half);
    }
    (width, height, rgba)
}

/// Encodes `frames` (all of the first one's size; others are left out) as a looping GIF,
/// each shown `delay` cs.
fn write_gif(
    path: &Path,
    frames: Vec<(usize, usize, Vec<u8>)>,
    delay: u16,
) -> Result<(usize, u64), String> {
    let fail =
        |e: &dyn std::fmt::Display| format!("{}: cannot write the recording: {e}", path.display());
    let Some(&(width, height, _)) = frames.first() else {
        return Err(format!("{}: nothing was recorded", path.display()));
    };
    let file = std::fs::File::create(path).map_err(|e| fail(&e))?;
    let (w16, h16) = (width as u16, height as u16);
    let mut encoder =
        gif::Encoder::new(std::io::BufWriter::new(file), w16, h16, &[]).map_err(|e| fail(&e))?;
    encoder
        .set_repeat(gif::Repeat::Infinite)
        .map_err(|e| fail(&e))?;
    let mut count = 0;
    for (w, h, mut rgba) in frames {
        if (w, h) != (width, height) {
            continue;
        }
        let mut frame = gif::Frame::from_rgba_speed(w16, h16, &mut rgba, QUANTIZE_SPEED);
        frame.delay = delay;
        encoder.write_frame(&frame).map_err(|e| fail(&e))?;
        count += 1;
    }
    drop(encoder);
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    Ok((count, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pictures_come_every_few_steps_and_shrink_by_box_averages() {
        // At 60 Hz a picture every 2 steps, shown 3 cs (2/60 s = 3.3 cs); at 120 Hz every 4.
        let r = Recording::new(PathBuf::from("x.gif"), 1.0 / 60.0, 10);
        assert_eq!((r.skip, r.delay), (2, 3));
        let r = Recording::new(PathBuf::from("x.gif"), 1.0 / 120.0, 10);
        assert_eq!((r.skip, r.delay), (4, 3));
        // A 1282 × 2 picture halves to 641 × 1 and stops there (no rows left to halve);
        // each pixel is the rounded mean of its block.
        let width = 1282;
        let mut rgba = vec![0u8; width * 2 * 4];
        for (i, px) in rgba.chunks_mut(4).enumerate() {
            px.copy_from_slice(&[(i % 4) as u8 * 10, 100, 200, 255]);
        }
        let (w, h, half) = shrink(width, 2, rgba);
        assert_eq!((w, h), (641, 1));
        // Columns 0, 1 of both rows: reds 0, 10 and (1282 mod 4 = 2) 20, 30: mean 15.
        assert_eq!(&half[..4], &[15, 100, 200, 255]);
    }

    #[test]
    fn a_gif_is_written_with_every_picture_and_read_back() {
        let dir = std::env::temp_dir().join(format!("impulse-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("two.gif");
        let frames = vec![
            (4, 3, [255u8, 0, 0, 255].repeat(12)),
            (4, 3, [0u8, 0, 255, 255].repeat(12)),
        ];
        let (count, bytes) = write_gif(&path, frames, 3).unwrap();
        assert_eq!(count, 2);
        assert!(bytes > 0);
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options
            .read_info(std::fs::File::open(&path).unwrap())
            .unwrap();
        let mut colours = Vec::new();
        while let Some(frame) = decoder.read_next_frame().unwrap() {
            assert_eq!((frame.width, frame.height, frame.delay), (4, 3, 3));
            colours.push(frame.buffer[..4].to_vec());
        }
        assert_eq!(colours, vec![vec![255, 0, 0, 255], vec![0, 0, 255, 255]]);
        assert!(write_gif(&dir.join("none.gif"), Vec::new(), 3).is_err());
    }
}
