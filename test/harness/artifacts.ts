/** Generation of db/schema.sql and the zapatos types, shared by the script and the drift test. */
import { generate } from 'zapatos/generate';
import { dumpSchema } from '../../src/db/migrate.js';

export async function generateArtifacts(databaseUrl: string, schemaFile: string, zapatosOutDir: string): Promise<void> {
  await dumpSchema(databaseUrl, schemaFile);
  await generate({
    db: { connectionString: databaseUrl },
    outDir: zapatosOutDir,
    schemas: { public: { include: '*', exclude: ['schema_migrations'] }, app: { include: '*', exclude: [] } },
    progressListener: false,
    warningListener: false,
  });
}
