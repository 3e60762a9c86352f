/** esbuild bundles imported stylesheets into the hashed app-*.css the index names. */
declare module '*.css';
