import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type SerializerCompiler = ReturnType<SerializerFactory>;
type Serializer = ReturnType<SerializerCompiler>;

const eagerFactory = SerializerSelector();

/**
 * Fastify's own response serializers (fast-json-stringify), each compiled when its route first answers with that
 * status (`schemaCompilation: 'lazy'`): compiling every route's response schemas cost more than the rest of
 * building the app.
 */
export const lazySerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = eagerFactory(externalSchemas, options);
  return (route) => {
    let serialize: Serializer | undefined;
    return (document) => (serialize ??= compile(route))(document);
  };
};

/** Fastify's default: every response schema compiled as its route is registered. */
export const eagerSerializerFactory: SerializerFactory = eagerFactory;
