import ajvCompiler, { type RouteDefinition, type ValidatorFactory } from "@fastify/ajv-compiler";

type Validate = ((data: unknown) => boolean) & { errors?: unknown };
type Compile = (route: RouteDefinition) => Validate;

/**
 * Fastify's own validator compiler (Ajv, with the app's `ajv` options), except that each
 * route's validator is compiled on its first request instead of at start-up. Compiling every
 * operation's body schema was half of a worker's start-up CPU (~480 of ~1,000 ms in a profile
 * of one process on a migrated database), paid again by every worker and every restart, for
 * operations a deployment may never call; a first request pays its own few milliseconds instead
 * (docs/decisions.md "Start-up"). Fastify reads `errors` off the function it was given after a
 * failed validation, so the wrapper carries them over. Only body schemas are validated, with no
 * coercion, defaults or removal (src/http/app.ts), so nothing needs Ajv's `parentData`, which
 * Fastify passes only to its own compiler's validators. Every operation's validator is compiled
 * by test/http/openapi.test.ts, which sends each operation's example to the app.
 */
export function lazyValidators(): ValidatorFactory {
  const compilers = ajvCompiler() as unknown as (...args: unknown[]) => Compile;
  const build = (...args: unknown[]): Compile => {
    const compile = compilers(...args);
    return (route) => {
      let validate: Validate | undefined;
      // A schema Ajv refuses fails each request with the same error (500), compiled once.
      let refused: unknown;
      const lazy: Validate = (data) => {
        if (refused !== undefined) throw refused;
        try {
          validate ??= compile(route);
        } catch (error) {
          refused = error;
          throw error;
        }
        const valid = validate(data);
        lazy.errors = validate.errors;
        return valid;
      };
      return lazy;
    };
  };
  return build as unknown as ValidatorFactory;
}
