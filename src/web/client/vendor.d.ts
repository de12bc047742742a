// The QR encoder is served next to our modules as ./uqr.js (src/web/assets.ts); its types are the package's.
declare module '*/uqr.js' {
  export { encode } from 'uqr';
}
