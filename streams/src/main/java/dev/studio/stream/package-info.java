/**
 * The receiving half of Studio's streams (SSE hub, replay, bus sources). Built with the
 * notification bus; the module exists now so that dependencies already point one way:
 * {@code migrations ← actors ← streams ← http ← app}.
 */
package dev.studio.stream;
