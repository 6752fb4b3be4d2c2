/* swipium/metro.h: the Metro bundler of a React Native / Expo project, managed for a session (qa_metro). */
#ifndef SWIPIUM_METRO_H
#define SWIPIUM_METRO_H

#include <swipium/context.h>
#include <swipium/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * What qa_metro start would do, without doing it: the project's framework (the one project detector),
 * the Metro command (`npx expo start --dev-client --port P` for Expo, `npx react-native start --port P`
 * for bare React Native) and its folder, the port (8081, or SWIPIUM_METRO_PORT from the server's own
 * environment), and the device whose port is reversed: the session's, else the single online emulator
 * (MULTIPLE_DEVICES, NO_DEVICE). @out_json: {framework, port, cwd, argv[], device (serial, null for an iOS
 * Simulator, which shares the host's loopback), platform}. UNSUPPORTED_FRAMEWORK when the project is
 * neither. (transfer full)
 */
SW_API int sw_metro_plan(sw_ctx *ctx, sw_session *s, char **out_json, sw_error **err);

/**
 * Metro's state: {framework, port, metroListening (something accepts on 127.0.0.1:P), reverseSet (the
 * device's tcp:P leads to the host's; null when no device could be asked), serving (GET /status answered
 * `packager-status:running` within 3 s), ready (serving and, on Android, reversed), metroPid (the one this
 * server started for the session, or null), device, deviceProblem? {failureCode, what}}. With @diagnose
 * also redBox {detected, lines[]} (the screen), logEvidence[] (React Native lines of the device log, at
 * most 20) and recovery[] (what to do next). Never fails for a missing device: deviceProblem says so.
 * (transfer full)
 */
SW_API int sw_metro_status(sw_ctx *ctx, sw_session *s, int diagnose, char **out_json, sw_error **err);

/**
 * qa_metro start, after consent (start_metro): the reverse first (METRO_FAILED when the device refuses
 * it; nothing is started then), then Metro in its own session and process group with its output in a
 * `metro` log artifact, recorded in processes.json and as the session's metroPid. A Metro that exits at
 * once is METRO_FAILED with its log's tail (the reverse is removed again). Port P taken by something that
 * is not Metro: METRO_FAILED, nothing changed; a Metro already serving there is reused (not ours: its pid
 * stays unknown). @out_json: {started, reused, framework, port, metroPid, argv, cwd, device, reverseSet,
 * serving, ready, logPath}. (transfer full)
 */
SW_API int sw_metro_start(sw_ctx *ctx, sw_session *s, char **out_json, sw_error **err);

/**
 * qa_metro stop: the Metro this server started for @s gets SIGTERM on its whole group (SIGKILL after
 * 5 s), its processes.json entry and metroPid go, its log is registered as an artifact (redacted), and
 * the device's reverse of port P is removed. {stopped, pid, reverseRemoved, logUri?, notes[]}. A device
 * that cannot be reached is a note, not a failure. (transfer full)
 */
SW_API int sw_metro_stop(sw_ctx *ctx, sw_session *s, char **out_json, sw_error **err);

/** Stops every Metro this process started (server shutdown), as sw_metro_stop does. */
SW_API void sw_metro_shutdown(sw_ctx *ctx, sw_store *store);

#ifdef __cplusplus
}
#endif

#endif
