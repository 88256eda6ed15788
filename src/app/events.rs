//! The panel's event log: the last contact and sensor begin / end events of the running
//! scene, and how many times each sensor was entered (a trigger that counts what passes
//! through it).

use std::collections::{BTreeMap, VecDeque};

use crate::headless::{step_events, EventLine};
use crate::physics::{BodyHandle, World};
use crate::scene::BodyMeta;

/// How many events the log keeps.
pub const LOG_LENGTH: usize = 200;

/// The kinds of event, as `EventLine::kind` names them, with the panel's labels.
pub const KINDS: [(&str, &str); 4] = [
    ("contact_begin", "contact begin"),
    ("contact_end", "contact end"),
    ("sensor_begin", "sensor begin"),
    ("sensor_end", "sensor end"),
];

/// The recent events and the sensors' counts.
#[derive(Clone, Debug)]
pub struct EventLog {
    /// The last [`LOG_LENGTH`] events, oldest first.
    pub lines: VecDeque<EventLine>,
    /// Events seen since the scene was loaded.
    pub total: usize,
    /// Per sensor body (by name): how many times something entered it.
    pub entered: BTreeMap<String, usize>,
    /// Which kinds the panel shows (same order as [`KINDS`]).
    pub show: [bool; 4],
}

impl Default for EventLog {
    fn default() -> Self {
        Self {
            lines: VecDeque::new(),
            total: 0,
            entered: BTreeMap::new(),
            // Persisting contacts are never logged; begins and ends of contacts are
            // frequent in a pile, so the sensors' events are what shows at first.
            show: [false, false, true, true],
        }
    }
}

impl EventLog {
    /// Forgets everything (a new scene).
    pub fn clear(&mut self) {
        let show = self.show;
        *self = EventLog {
            show,
            ..EventLog::default()
        };
    }

    /// Adds the events of the world's last step.
    pub fn record(&mut self, world: &World, meta: &BTreeMap<BodyHandle, BodyMeta>) {
        let events = world.contact_events();
        let any = !(events.begin.is_empty()
            && events.end.is_empty()
            && events.sensor_begin.is_empty()
            && events.sensor_end.is_empty());
        if !any {
            return;
        }
        for pair in &events.sensor_begin {
            // The sensor is whichever collider of the pair is one.
            let sensor = [
                (pair.collider_a, pair.body_a),
                (pair.collider_b, pair.body_b),
            ]
            .into_iter()
            .find(|(c, _)| world.collider(*c).is_some_and(|c| c.is_sensor()))
            .map(|(_, b)| b);
            if let Some(body) = sensor {
                let name = crate::headless::body_name(meta, body);
                *self.entered.entry(name).or_default() += 1;
            }
        }
        for line in step_events(world, meta) {
            self.total += 1;
            if self.lines.len() == LOG_LENGTH {
                self.lines.pop_front();
            }
            self.lines.push_back(line);
        }
    }

    /// The shown events, newest first.
    pub fn shown(&self) -> impl Iterator<Item = &EventLine> {
        self.lines.iter().rev().filter(|l| {
            KINDS
                .iter()
                .zip(self.show)
                .any(|((kind, _), on)| on && *kind == l.kind)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sensor_scene_counts_five_balls_through_the_trigger() {
        // scenes/sensors.ron: five balls roll through the trigger gate into the pickup
        // zone; the strays never meet a sensor (see tests/suite/cli.rs for the event order).
        let text = include_str!("../../scenes/sensors.ron");
        let mut scene = crate::scene::load_str(text, "sensors.ron").expect("loads");
        let mut log = EventLog::default();
        for _ in 0..600 {
            scene.world.step(scene.timestep);
            log.record(&scene.world, &scene.meta);
        }
        assert_eq!(log.entered.get("trigger"), Some(&5), "{:?}", log.entered);
        assert_eq!(
            log.entered.get("pickup zone"),
            Some(&5),
            "{:?}",
            log.entered
        );
        // Shown by default: the sensor events only, newest first.
        let shown: Vec<&EventLine> = log.shown().collect();
        assert_eq!(shown.len(), 15, "5 gate entries, 5 exits, 5 zone entries");
        assert!(shown.iter().all(|l| l.kind.starts_with("sensor")));
        assert!(shown.windows(2).all(|w| w[0].step >= w[1].step));
        assert!(log.total >= 15);
    }
}
