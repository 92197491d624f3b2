/* ply.h — particles as binary little-endian PLY, written and read back.
 * flipkit common/writers/: vertex-only files with float x y z vx vy vz, which Blender, MeshLab and
 * ParaView open; the grader reads them back with ply_read_particles. */
#ifndef FLIPKIT_PLY_H
#define FLIPKIT_PLY_H

#include <stddef.h>
#include "particles.h"

/* Writes all particles to path (through a temporary file renamed into place, so a crash
 * never leaves half a frame). Returns 0, or -1 with one line in err. */
int ply_write_particles(const char *path, const Particles *ps, char *err, size_t errlen);

/* Reads a file written by ply_write_particles (or any binary little-endian PLY whose vertex
 * element has float x y z, and optionally float vx vy vz; other float/int properties are
 * skipped). ps must be initialised; its contents are replaced. Returns 0, or -1 with one
 * line in err naming the file and what was wrong, and ps left empty (count 0).
 * Any scalar type (char uchar short ushort int uint float double, or int8..float64) is
 * converted to float; vx vy vz are 0 when absent. Elements before vertex are skipped if
 * they have no list property; elements after vertex are ignored; a list property in vertex
 * is an error. See the comment at the top of ply.c for the exact rules. */
int ply_read_particles(const char *path, Particles *ps, char *err, size_t errlen);

#endif
