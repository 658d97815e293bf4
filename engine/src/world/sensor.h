/* Sensors (internal): the overlaps of sensor shapes, found once per step in
 * its first part (world/sensor.c). */
#ifndef SN_WORLD_SENSOR_H
#define SN_WORLD_SENSOR_H

#include <stdbool.h>
#include <stdint.h>

/// A visitor code with this bit names a soft body (the rest: its index);
/// without it, a shape index.
#define SN_SENSOR_SOFT 0x80000000u

/// One visitor inside one sensor, with both slots' generations (a slot
/// reused between two passes is a different object).
typedef struct sn_sensor_overlap {
  int32_t sensor;   ///< shape index of the sensor
  uint32_t visitor; ///< shape index, or SN_SENSOR_SOFT | soft body index
  uint16_t sensor_generation, visitor_generation;
} sn_sensor_overlap;

typedef struct sn_world sn_world;

/// The sensors' overlaps of the world as it is, into w->sensor_next, and the
/// events against the last pass's into w->sensor_begin_next and
/// w->sensor_end_next. Changes nothing a caller sees; false when out of
/// memory (nothing to undo).
bool sn_sensor_find(sn_world *w);
/// Publishes what sn_sensor_find found (no allocation, cannot fail).
void sn_sensor_commit(sn_world *w);

#endif /* SN_WORLD_SENSOR_H */
