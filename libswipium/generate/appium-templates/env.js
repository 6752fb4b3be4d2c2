// env.js: settings and test data from the environment (written by swipium qa_generate; edit freely).
/** The value of @name; fails the test when it is not set (secrets and placeholders are never stored here). */
export function requireEnv(name) {
    const value = process.env[name];
    if (value === undefined || value === '') {
        throw new Error(`Set ${name} in the environment: this suite reads the value from there and never stores it.`);
    }
    return value;
}
/** The value of @name, or the recorded @fallback when it is not set. */
export function envOr(name, fallback) {
    const value = process.env[name];
    return value === undefined ? fallback : value;
}
/** True when @name is 1, true or yes. */
export function envFlag(name) {
    const value = envOr(name, '').trim().toLowerCase();
    return value === '1' || value === 'true' || value === 'yes';
}
