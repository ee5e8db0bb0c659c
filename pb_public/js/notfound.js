// 404 page: only the header navigation.
import { renderChrome } from './app.js';

renderChrome();
