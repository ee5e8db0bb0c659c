// Package geo is the arithmetic of "cerca de mí": great-circle distances
// between points given in degrees, and the grid cells the listing's
// spatial index buckets camellos in.
package geo

import (
	"math"
	"strconv"
	"strings"
)

// EarthRadiusKm is the mean Earth radius (IUGG), in km.
const EarthRadiusKm = 6371.0088

// Point is a position in degrees (WGS84).
type Point struct {
	Lat float64 `json:"lat"`
	Lng float64 `json:"lng"`
}

// Valid reports whether p is a position on Earth (latitude −90…90,
// longitude −180…180, no NaN).
func (p Point) Valid() bool {
	return p.Lat >= -90 && p.Lat <= 90 && p.Lng >= -180 && p.Lng <= 180
}

// DistanceKm is the haversine distance between a and b, in km.
func DistanceKm(a, b Point) float64 {
	const rad = math.Pi / 180
	dLat := (b.Lat - a.Lat) * rad
	dLng := (b.Lng - a.Lng) * rad
	s := math.Sin(dLat/2)*math.Sin(dLat/2) +
		math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * EarthRadiusKm * math.Asin(math.Min(1, math.Sqrt(s)))
}

// RoundKm rounds a distance for an answer: one decimal under 10 km, whole
// km above (a coarse figure: the exact point stays private).
func RoundKm(d float64) float64 {
	if d < 10 {
		return math.Round(d*10) / 10
	}
	return math.Round(d)
}

// CellDeg is the side of a grid cell, in degrees (about 5.5 km of
// latitude; Colombia lies within 4°S–13°N, where a degree of longitude is
// 108–111 km).
const CellDeg = 0.05

// Cell is a grid cell: the floor of the coordinates divided by CellDeg.
type Cell struct {
	Row, Col int32
}

// CellOf is the cell holding p.
func CellOf(p Point) Cell {
	return Cell{Row: int32(math.Floor(p.Lat / CellDeg)), Col: int32(math.Floor(p.Lng / CellDeg))}
}

// kmPerDegLat is the length of a degree of latitude, in km.
const kmPerDegLat = EarthRadiusKm * math.Pi / 180

// CellsWithin lists the cells that may hold a point within km of p: the
// rectangle of cells around p's cell wide enough at p's latitude.
func CellsWithin(p Point, km float64) (rows, cols [2]int32) {
	dLat := km / kmPerDegLat
	cosLat := math.Cos(math.Min(89, math.Abs(p.Lat)+dLat) * math.Pi / 180)
	dLng := km / (kmPerDegLat * cosLat)
	lo, hi := CellOf(Point{p.Lat - dLat, p.Lng - dLng}), CellOf(Point{p.Lat + dLat, p.Lng + dLng})
	return [2]int32{lo.Row, hi.Row}, [2]int32{lo.Col, hi.Col}
}

// Spanish messages of a position sent by a client (the listing, the
// search, a camello's work area, the gazetteer).
const (
	MsgLat            = "Debe ser una latitud entre -90 y 90"
	MsgLng            = "Debe ser una longitud entre -180 y 180"
	MsgLatLngTogether = "Envía lat y lng juntos"
)

// ParseQuery reads a position sent as two query values; badLat and badLng
// say which is not a number in range.
func ParseQuery(lat, lng string) (p Point, badLat, badLng bool) {
	var err1, err2 error
	p.Lat, err1 = strconv.ParseFloat(strings.TrimSpace(lat), 64)
	p.Lng, err2 = strconv.ParseFloat(strings.TrimSpace(lng), 64)
	badLat = err1 != nil || !(p.Lat >= -90 && p.Lat <= 90)
	badLng = err2 != nil || !(p.Lng >= -180 && p.Lng <= 180)
	return p, badLat, badLng
}
